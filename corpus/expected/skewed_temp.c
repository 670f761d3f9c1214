/* skewed_temp.c — a temporary with a skewed footprint (issue 21's
 * "unimodular reindexing" case; seed 004's change of basis before
 * folding), written for the corpus.
 *
 * B[i + j][j] is written for 0 <= i < N, 0 <= j < M and read back, in
 * the other direction, by a second nest: every value is live at once
 * between the nests. Declared [N + M][M] (2100 cells at N = 40, M = 30),
 * it holds N*M = 1200 values, one per iteration of the first nest, so
 * 1200 cells is the least any storage can have. Successive modulo on the
 * axes keeps (N + M - 1) * M = 2070; the lattice B[(i + j) % N][j] has
 * 1200 cells and a `%` on every access; in the write's basis
 * (c0 - c1, c1) no access wraps: B[N][M] accessed as B[i][j].
 * External: in (input), out (output).
 * Fixes: none (an original kernel).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 40
#define M 30

static void skewed_temp(double in[N][M], double out[N][M])
{
    int i, j;
    double B[N][M]; /* polyfold: B[i + j][j] -> B[i][j] */

#pragma scop
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            B[i][j] = in[i][j] * 2.0 - (double)j;
    for (i = N - 1; i >= 0; i--)
        for (j = M - 1; j >= 0; j--)
            out[i][j] = B[i][j] + (double)(i - j) * 0.5;
#pragma endscop
}

int main(void)
{
    static double in[N][M], out[N][M];
    int i, j;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;

    skewed_temp(in, out);

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            total += out[i][j];
            weighted += (double)((i * 5 + j) % 13 + 1) * out[i][j];
        }
    printf("skewed_temp N=%d M=%d\n", N, M);
    printf("out sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
