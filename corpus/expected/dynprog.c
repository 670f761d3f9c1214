/* dynprog.c — toy dynamic-programming kernel (3) of seed 001 (Alias, Baray,
 * Darte, "Bee+Cl@k", LCTES 2007), Figure 4, as printed.
 *
 * c is read before it is written: at (i, j, k) the read c[k][j] (k > i)
 * sees the initial value, row k being computed only later. The paper marks
 * c and W "live-in"; here both are parameters of the kernel (external), so c
 * keeps its layout. Temporary: sum_c[N][N][N] (1000 cells).
 * Published (Figure 3): sum_c 1000 -> 1; c 100 -> 81 (heuristics) -> 61
 * (optimal), max-live 44, counted with c's upward-exposed cells live from
 * the start. dynprog_init.c is the variant in which c is a pure temporary;
 * dynprog_split.c is the soundness variant of DESIGN.md.
 *
 * Fixes: none needed (no out-of-bounds access).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 10

static void dynprog_kernel(int W[N][N], int c[N][N], int out[1])
{
    int i, j, k;
    int sum_c; /* polyfold: sum_c[i][j][k] -> sum_c */

#pragma scop
    for (i = 0; i <= N - 2; i++)
        for (j = i + 1; j <= N - 1; j++) {
            sum_c = 0;
            for (k = i + 1; k <= j - 1; k++)
                sum_c = sum_c + c[i][k] + c[k][j];
            c[i][j] = sum_c + W[i][j];
        }
    out[0] = c[0][N - 1];
#pragma endscop
}

int main(void)
{
    int W[N][N], c[N][N], out[1];
    int i, j;
    long total = 0, weighted = 0;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            W[i][j] = (i * 5 + j * 3) % 7 - 2;
            c[i][j] = (i * 11 + j * 7) % 13 - 6;
        }
    out[0] = 0;

    dynprog_kernel(W, c, out);

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            total += c[i][j];
            weighted += (long)(i * N + j + 1) * c[i][j];
        }
    printf("dynprog N=%d\n", N);
    printf("out %d\n", out[0]);
    printf("c sum %ld weighted %ld\n", total, weighted);
    return 0;
}
