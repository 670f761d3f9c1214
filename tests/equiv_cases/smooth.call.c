/* smooth with a call of a function the file does not define (it may read
 * and write anything): NOT CHECKABLE, exit 2. */
#include <stdio.h>

#define N 24

void record(double *p);

void smooth(const double x[N], double out[N])
{
    double y[2];
    int i;

    for (i = 0; i < N; i++) {
        y[i % 2] = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i] = y[i % 2] - y[(i - 1) % 2];
    }
    record(out);
}

int main(void)
{
    double x[N], out[N];
    int i;

    for (i = 0; i < N; i++) {
        x[i] = (double)((i * 7 + 3) % 11) - 4.5;
        out[i] = -1.0;
    }
    smooth(x, out);
    for (i = 0; i < N; i++)
        printf("%d %.17g\n", i, out[i]);
    return 0;
}
