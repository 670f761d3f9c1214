/* smooth as two loops: all of y first (reversed: the iterations are
 * independent), then out. CORRECT: every y[i] is computed before out reads
 * it, and the y[i] do not depend on each other. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[N];
    int i;

    for (i = N - 1; i >= 0; i--)
        y[i] = 0.5 * x[i] + 0.25;
    for (i = 1; i < N; i++)
        out[i] = y[i] - y[i - 1];
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
