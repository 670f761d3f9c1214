/* The copy loop `a[t][j] = a[t - 1][j]` becomes `a[j] = a[j]` once `a`
 * keeps one row, and is deleted. Its pragma sits in an `#ifdef _OPENMP`
 * block: the block goes with the loop, so that no pragma is left to apply
 * to the statement after it. */
#include <stdio.h>
#define T 6
#define N 40

int main(void)
{
    double a[T][N];
    double s = 0.0;
    int t, j;
    for (j = 0; j < N; j++)
        a[0][j] = j * 0.5;
    for (t = 1; t < T; t++) {
#ifdef _OPENMP
#pragma omp parallel for
#endif
        for (j = 0; j < N; j++)
            a[t][j] = a[t - 1][j];
        s = s + a[t][t];
    }
    printf("%f\n", s);
    return 0;
}
