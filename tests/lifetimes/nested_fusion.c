/* Issue 48: a producer loop and a consumer loop inside a time loop are
 * fused like top-level loops; fused, each tmp[i] is read in the
 * iteration that writes it: one cell. */
#include <stdio.h>

#define N 64
#define T 6

static double a[N], acc[N];

static void kernel(void)
{
    double tmp[N];
    int t, i;
    for (t = 0; t < T; t++) {
        for (i = 0; i < N; i++)
            tmp[i] = a[i] * (t + 1);
        for (i = 0; i < N; i++)
            acc[i] += tmp[i];
    }
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        a[i] = (double)(i % 5) - 1.5;
        acc[i] = 0.0;
    }
    kernel();
    for (i = 0; i < N; i += 7)
        printf("%.6f\n", acc[i]);
    return 0;
}
