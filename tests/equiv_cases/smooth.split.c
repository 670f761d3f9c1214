/* smooth, its loop split in two and the guard peeled: i = 0 alone, then
 * 1..N-1 without the `if`; y kept whole, z dropped. CORRECT: the same
 * operations in the same order. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[N];
    int i;

    y[0] = 0.5 * x[0] + 0.25;
    for (i = 1; i < N / 2; i++) {
        y[i] = 0.5 * x[i] + 0.25;
        out[i] = y[i] - y[i - 1];
    }
    for (i = N / 2; i < N; i++) {
        y[i] = 0.5 * x[i] + 0.25;
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
