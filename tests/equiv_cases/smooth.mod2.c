/* smooth, contracted by hand: y[i] -> y[i % 2], the dead z dropped.
 * CORRECT: y[i] is read at i and i + 1 only, so two cells indexed by the
 * parity of i never hold two live values; z is never read. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[2];
    int i;

    for (i = 0; i < N; i++) {
        y[i % 2] = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i] = y[i % 2] - y[(i - 1) % 2];
    }
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
