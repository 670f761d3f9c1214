/* A per-row scratch under a parallel loop whose pragma is guarded by
 * `#ifdef _OPENMP`, as portable code writes it. Sequentially `row` would
 * fold to rotating scalars shared by every thread; each iteration of `i`
 * must keep its own row, with -fopenmp or without. */
#include <stdio.h>
#define N 48
#define M 30

int main(void)
{
    static unsigned img[N][M];
    unsigned out[N];
    unsigned row[N][M + 2];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            img[i][j] = (unsigned)(i * 131 + j * 7) % 251u;
#ifdef _OPENMP
#pragma omp parallel for private(j)
#endif
    for (i = 0; i < N; i++) {
        for (j = 0; j < M + 2; j++)
            row[i][j] = (j >= 1 && j <= M) ? img[i][j - 1] : 0u;
        out[i] = 0u;
        for (j = 1; j <= M; j++)
            out[i] = out[i] * 31u + row[i][j - 1] + 2u * row[i][j] + row[i][j + 1];
    }
    unsigned total = 0;
    for (i = 0; i < N; i++)
        total = total * 7u + out[i];
    printf("%u\n", total);
    return 0;
}
