/* dynprog_split.c — soundness test case derived from dynprog of seed 001
 * Figure 4 (see dynprog.c), described in DESIGN.md "Lifetimes and
 * conflicts".
 *
 * The upward-exposed reads c[k][j] (k > i, which in dynprog.c see c's
 * initial values) read a separate external input array c_in instead, so
 * the temporary c only holds computed values: c[i][k] is read inside row i,
 * and the writes c[i][N-1] are never read, except c[0][N-1], which the
 * output out[0] reads at the very end.
 *
 * Why it matters: with seed 001's first-write/last-READ lifetimes the
 * never-read writes c[i][N-1] (i >= 1) occupy nothing, the exact DS then
 * admits the mapping c[i][j] -> c[j % 8], and those writes clobber the live
 * value c[0][N-1]: out[0] changes. Sound first-write/last-ACCESS lifetimes
 * make c[i][N-1] conflict with c[0][N-1] (DESIGN.md: the sound relation
 * needs (i - j) mod 9).
 *
 * Observability: out[0] depends on c[0][N-1]; the external array rowsum
 * receives sum_c[i][N-1][N-2] (= c[i][N-1] - W[i][N-1]) after each row, so
 * the values computed by rows i >= 1 show too, without adding any read of c.
 * Temporaries: c[N][N] (100 cells), sum_c[N][N][N] (1000 cells, -> 1).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 10

static void dynprog_split_kernel(int W[N][N], int c_in[N][N], int out[1], int rowsum[N])
{
    int i, j, k;
    int c[N]; /* polyfold: c[i][k] -> c[k - i] */
    int sum_c; /* polyfold: sum_c[i][j][k] -> sum_c */

#pragma scop
    for (i = 0; i <= N - 2; i++) {
        for (j = i + 1; j <= N - 1; j++) {
            sum_c = 0;
            for (k = i + 1; k <= j - 1; k++)
                sum_c = sum_c + c[k - i] + c_in[k][j];
            c[j - i] = sum_c + W[i][j];
        }
        rowsum[i] = sum_c;
    }
    out[0] = c[N - 1];
#pragma endscop
}

int main(void)
{
    int W[N][N], c_in[N][N], out[1], rowsum[N];
    int i, j;
    long total = 0, weighted = 0;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            W[i][j] = (i * 5 + j * 3) % 7 - 2;
            c_in[i][j] = (i * 11 + j * 7) % 13 - 6;
        }
    /* Make the never-read writes c[i][N-1], i >= 1, differ from c[0][N-1]. */
    for (i = 1; i < N; i++)
        W[i][N - 1] = 1000 * i;
    out[0] = 0;
    for (i = 0; i < N; i++)
        rowsum[i] = 0;

    dynprog_split_kernel(W, c_in, out, rowsum);

    for (i = 0; i < N; i++) {
        total += rowsum[i];
        weighted += (long)(i + 1) * rowsum[i];
    }
    printf("dynprog_split N=%d\n", N);
    printf("out %d\n", out[0]);
    printf("rowsum sum %ld weighted %ld\n", total, weighted);
    return 0;
}
