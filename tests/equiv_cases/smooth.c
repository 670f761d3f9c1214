/* smooth: the original. y is a temporary (local, read only in the loop);
 * z is a dead temporary (written, never read). out[1..N-1] is live-out. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[N];
    double z[N];
    int i;

    for (i = 0; i < N; i++) {
        y[i] = 0.5 * x[i] + 0.25;
        z[i] = 2.0 * x[i];
        if (i >= 1)
            out[i] = y[i] - y[i - 1];
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
