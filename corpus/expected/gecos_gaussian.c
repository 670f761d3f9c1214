/* gecos_gaussian.c — 3 x 3 Gaussian-like filter in two passes, seed 002
 * (Morvan, "Memory Allocation and Array Contraction using the Polyhedral
 * Model in GeCoS", 2014) Example 1, Figure 1.
 *
 * As printed, with the sizes as object-like macros instead of function
 * parameters (N rows, M columns). S0 (i, j), 1 <= i <= N-2, 0 <= j <= M-1,
 * writes tmp[i][j] from in[i-1..i+1][j]; S1 (i, j), 1 <= j <= M-2, writes
 * out[i][j] from tmp[i][j-1..j+1].
 * Temporary: tmp[N][M] (800 cells declared, (N-2) x M = 720 written).
 * External: in (input), out (output; its border is not written, main
 * clears it). N = 20, M = 40 are our choice: the paper gives no sizes;
 * DESIGN.md's "720 cells unfused" is (N-2) x M and fixes only the product.
 * Targets: tmp 720 cells under the original (unfused) schedule (all of
 * them are live at once); 4 under the paper's fused schedule
 * S0 -> [i, j], S1 -> [i, j + 2] (roadmap: schedule changes).
 * Fixes: none needed.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 20
#define M 40

static void gauss(int in[N][M], int out[N][M])
{
    int i, j;
    int tmp[M]; /* polyfold: tmp[i][j] -> tmp[j] */

#pragma scop
    for (i = 1; i < N - 1; i++) {
        for (j = 0; j < M; j++)
            tmp[j] = 3 * in[i][j] - in[i - 1][j] - in[i + 1][j];
        for (j = 1; j < M - 1; j++)
            out[i][j] = 3 * tmp[j] - tmp[j - 1] - tmp[j + 1];
    }
#pragma endscop
}

int main(void)
{
    static int in[N][M];
    static int out[N][M];
    int i, j;
    long total = 0, weighted = 0;

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            in[i][j] = (i * 31 + j * 17 + i * j) % 41 - 20;
            out[i][j] = 0;
        }

    gauss(in, out);

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            total += out[i][j];
            weighted += (long)((i * M + j) % 13 + 1) * out[i][j];
        }
    printf("gecos_gaussian N=%d M=%d\n", N, M);
    printf("out sum %ld weighted %ld\n", total, weighted);
    return 0;
}
