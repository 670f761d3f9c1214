/* Class 7 of issue 14: the parallel loop itself is not part of the SCoP
 * (its body has a `while` loop), so the SCoP is the two inner loops, run
 * once per iteration of `i` and at the same time as the other iterations,
 * with `i` a parameter. Given a value for `i` (`-D i=5`), the SCoP alone
 * would fold `row` to `row[M + 2]`: one row for every thread. `row` is
 * declared outside the parallel loop, so it must stay as it is. */
#include <stdio.h>
#define N 64
#define M 32

int main(void)
{
    static unsigned img[N][M];
    unsigned out[N];
    unsigned row[N][M + 2];
    int i, j, n;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            img[i][j] = (unsigned)(i * 131 + j * 7) % 251u;
#pragma omp parallel for private(j, n) num_threads(4)
    for (i = 0; i < N; i++) {
        n = 0;
        while (n < 3)
            n++;
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
