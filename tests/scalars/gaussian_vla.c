/* gaussian_vla.c — corpus/gecos_gaussian.c with symbolic sizes: tmp as a
 * VLA, N rows and M columns given on the command line as `NxM` (N, M >=
 * 0). Fused (S1 shifted by two columns), tmp is a window of three cells
 * of row i, which the loops of j restart on every row: three rotating
 * scalars in the headers of the inner loops. The arrays have one row and
 * one column more than the loops use, so that no VLA is empty. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static void gauss(int N, int M, int in[N + 1][M + 1], int out[N + 1][M + 1])
{
    int i, j;
    int tmp[N + 1][M + 1];

#pragma scop
    for (i = 1; i < N - 1; i++)
        for (j = 0; j < M; j++)
            tmp[i][j] = 3 * in[i][j] - in[i - 1][j] - in[i + 1][j];
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < M - 1; j++)
            out[i][j] = 3 * tmp[i][j] - tmp[i][j - 1] - tmp[i][j + 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = 20, M = 40;
    int i, j;
    long total = 0, weighted = 0;

    if (argc > 1 && sscanf(argv[1], "%dx%d", &N, &M) != 2)
        return 2;
    int (*in)[M + 1] = malloc(sizeof(int) * (size_t)(N + 1) * (size_t)(M + 1));
    int (*out)[M + 1] = malloc(sizeof(int) * (size_t)(N + 1) * (size_t)(M + 1));
    for (i = 0; i <= N; i++)
        for (j = 0; j <= M; j++) {
            in[i][j] = (i * 31 + j * 17 + i * j) % 41 - 20;
            out[i][j] = 0;
        }
    gauss(N, M, in, out);
    for (i = 0; i <= N; i++)
        for (j = 0; j <= M; j++) {
            total += out[i][j];
            weighted += (long)((i * (M + 1) + j) % 13 + 1) * out[i][j];
        }
    printf("N=%d M=%d out sum %ld weighted %ld\n", N, M, total, weighted);
    free(in);
    free(out);
    return 0;
}
