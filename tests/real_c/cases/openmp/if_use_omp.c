/* The parallel pragma is selected by the build: `#if USE_OMP` (default 1,
 * `-DUSE_OMP=0` turns it off), with a vectorisation hint otherwise. The
 * running sums `acc[i][k]` of each row fold to one cell per row, but never
 * to one scalar shared by the threads, whatever USE_OMP is. */
#include <stdio.h>
#ifndef USE_OMP
#define USE_OMP 1
#endif
#define N 40
#define K 24

int main(void)
{
    static double w[N][K];
    double acc[N][K];
    double best[N];
    int i, k;
    for (i = 0; i < N; i++)
        for (k = 0; k < K; k++)
            w[i][k] = (double)((i * 17 + k * 5) % 13) - 6.0;
#if USE_OMP
#pragma omp parallel for private(k)
#else
#pragma GCC ivdep
#endif
    for (i = 0; i < N; i++) {
        acc[i][0] = w[i][0];
        for (k = 1; k < K; k++)
            acc[i][k] = 0.5 * acc[i][k - 1] + w[i][k];
        best[i] = acc[i][K - 1];
    }
    double total = 0.0;
    for (i = 0; i < N; i++)
        total += (i + 1) * best[i];
    printf("%.9f\n", total);
    return 0;
}
