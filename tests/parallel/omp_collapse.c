/* Class 7 of issue 14: `collapse(2)` makes the iterations of both loops
 * unordered. Sequentially `t` becomes one scalar, with the outer loop
 * alone parallel `t[N]` would do; with `collapse(2)` two threads may run
 * (i, j) and (i, j') at once, so `t` keeps both dimensions. */
#include <stdio.h>
#define N 24
#define M 20

int main(void)
{
    static int in[N][M], out[N][M];
    int t[N][M];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            in[i][j] = (i * 37 + j * 11) % 101;
#pragma omp parallel for collapse(2) num_threads(4)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            t[i][j] = in[i][j] * 2 + 1;
            out[i][j] = t[i][j] * t[i][j] - in[i][j];
        }
    long h = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            h = (h * 31 + out[i][j]) % 1000000007L;
    printf("%ld\n", h);
    return 0;
}
