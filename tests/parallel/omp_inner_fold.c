/* Class 7 of issue 14: the parallel dimension is kept, the other one may
 * still fold. Each iteration of the parallel loop runs a recurrence over
 * k in its own row of `acc`: `acc[N][K]` may become `acc[N]` (one cell
 * per row, the read of a statement comes before its write), never a
 * storage shared by the rows. */
#include <stdio.h>
#define N 32
#define K 16

int main(void)
{
    static double x[N][K];
    double y[N];
    double acc[N][K];
    int i, k;
    for (i = 0; i < N; i++)
        for (k = 0; k < K; k++)
            x[i][k] = (double)((i * 7 + k * 3) % 13) - 6.0;
#pragma omp parallel for private(k) num_threads(4)
    for (i = 0; i < N; i++) {
        acc[i][0] = x[i][0];
        for (k = 1; k < K; k++)
            acc[i][k] = acc[i][k - 1] * 0.5 + x[i][k];
        y[i] = acc[i][K - 1];
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += y[i] * (double)(i + 1);
    printf("%.6f\n", s);
    return 0;
}
