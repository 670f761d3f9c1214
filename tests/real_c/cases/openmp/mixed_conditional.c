/* The conditional before the parallel loop also holds code (the thread
 * count), so it is not a pragma alone: the pragma line still marks the
 * loop, and the scratch keeps one cell per iteration. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#define N 80

int main(void)
{
    double in[N], out[N];
    double t[N];
    int i;
    for (i = 0; i < N; i++)
        in[i] = (double)(i % 7) - 3.0;
#ifdef _OPENMP
    omp_set_num_threads(4);
#pragma omp parallel for schedule(static)
#endif
    for (i = 0; i < N; i++) {
        t[i] = in[i] * in[i];
        out[i] = t[i] + 0.5 * in[i];
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += (i + 1) * out[i];
    printf("%.9f\n", s);
    return 0;
}
