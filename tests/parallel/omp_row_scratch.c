/* Class 7 of issue 14: a scratch row per iteration of a parallel loop.
 * Sequentially `row` folds to `row[M + 2]`; under `omp parallel for` that
 * one row would be shared by every thread (a data race). The output must
 * keep the dimension of `i`: `row[N][M + 2]` stays as it is. */
#include <stdio.h>
#define N 64
#define M 32

int main(void)
{
    static unsigned img[N][M];
    unsigned out[N];
    unsigned row[N][M + 2];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            img[i][j] = (unsigned)(i * 131 + j * 7) % 251u;
#pragma omp parallel for private(j) num_threads(4)
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
