/* A time loop whose inner loop is parallel through a conditional pragma
 * with an `#elif` branch. The scratch `d[t][i]` is rewritten in every
 * time step: its time dimension folds, its parallel dimension stays. */
#include <stdio.h>
#define T 12
#define N 50

int main(void)
{
    static double u[N + 2];
    double d[T][N + 2];
    int t, i;
    for (i = 0; i < N + 2; i++)
        u[i] = (double)((i * 7) % 11);
    for (t = 0; t < T; t++) {
#if defined(_OPENMP)
#pragma omp parallel for
#elif defined(__GNUC__)
#pragma GCC ivdep
#endif
        for (i = 1; i <= N; i++)
            d[t][i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
        for (i = 1; i <= N; i++)
            u[i] = u[i] + 0.2 * d[t][i];
    }
    double s = 0.0;
    for (i = 0; i < N + 2; i++)
        s += (i + 1) * u[i];
    printf("%.9f\n", s);
    return 0;
}
