/* Issue 48: values carried from one step to the next must keep their
 * cells: tmp[i] written in step t is read in step t + 1, after every
 * other cell of tmp is written again. No fold, fused or not. */
#include <stdio.h>

#define N 32
#define T 5

static double a[N], acc[N];

static void kernel(void)
{
    double tmp[N];
    int t, i;
    for (i = 0; i < N; i++)
        tmp[i] = a[i];
    for (t = 0; t < T; t++) {
        for (i = 0; i < N; i++)
            acc[i] += tmp[N - 1 - i];
        for (i = 0; i < N; i++)
            tmp[i] = a[i] * (t + 2) + acc[i];
    }
    for (i = 0; i < N; i++)
        acc[i] += tmp[i];
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        a[i] = (double)(i % 9) * 0.5;
        acc[i] = 1.0;
    }
    kernel();
    for (i = 0; i < N; i += 3)
        printf("%.6f\n", acc[i]);
    return 0;
}
