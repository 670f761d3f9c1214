/* mot_detect.c — motion detection kernel (5) of seed 001 (Alias, Baray,
 * Darte, "Bee+Cl@k", LCTES 2007), Figure 4 (mot_detect_kern.c).
 *
 * For every position (i, j), m <= i <= M, n <= j <= N, the chain Delta
 * accumulates A[i][j] - A[k][l] over the (2m+1) x (2n+1) window around
 * (i, j) (the window position is linearised as (2n+1)(k-i) + (l-j) + const);
 * the chain ODelta accumulates the window results over all positions.
 * Temporaries: Delta[M-m+1][N-n+1][(2m+1)(2n+1)] = 29 x 29 x 81 = 68121
 * cells (= 261 x 261), ODelta[(M-m+1)(N-n+1)+1] = 842 cells.
 * External: A (live-in), opt (live-out).
 * Published (Figure 3): Delta 68121 -> 10 (Bee over-approximated DS through
 * integer divisions; the exact DS is {0}, target 1); ODelta 842 -> 1.
 *
 * Fixes to the printed code (it reads and writes out of bounds), chosen so
 * that the declared sizes stay those of Figure 3:
 *  - Delta is indexed Delta[i][j][...] with i up to M = 32 in an extent of
 *    M-m+1 = 29: indexed Delta[i-m][j-n][...] here.
 *  - Delta's chain as printed needs 82 cells per (i, j): the init
 *    Delta[.][.][0] = 0, 81 window terms written at 1..81, and the final
 *    read of index (2m+1)(2n+1) = 81, one past the extent 81. Here the
 *    first window term initialises the chain, Delta[.][.][0] =
 *    A[i][j] - A[i-m][j-n], instead of the zero; the window loop skips that
 *    first point (guard k > i-m || l > j-n) and writes index
 *    (2n+1)k - (2n+1)i + l - j + (2mn+m+n) (that is 1..80), reading the
 *    index one less; the final read is of index (2m+1)(2n+1) - 1 = 80.
 *    Same sum, same extent (81).
 *  - A is declared A[(m+1)(m+1)][(n+1)(n+1)] = 25 x 25 but read at
 *    A[k][l] with k up to M+m = 36: declared A[M+m+1][N+n+1] here.
 *  - the first ODelta write is at (N-n+1)i + j - (mN-mn+m+n+1) = -1 for
 *    (i, j) = (m, n), and the read is written with i in place of j:
 *    ODelta[(N-n+1)i + j - (mN-mn+m+n-1)] (1..841) =
 *    ... + ODelta[(N-n+1)i + j - (mN-mn+m+n)] (0..840) here, so that
 *    ODelta[0] = 0 starts the chain and opt[0] = ODelta[(M-m+1)(N-n+1)] =
 *    ODelta[841] reads its end, as printed.
 * Note: the macros are named m and n as in the paper, so no other
 * identifier in this file may be called m or n.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define m 4
#define n 4
#define M 32
#define N 32

static void mot_detect_kernel(int A[M + m + 1][N + n + 1], int opt[1])
{
    int i, j, k, l;
    int ODelta[(M - m + 1) * (N - n + 1) + 1];
    int Delta[M - m + 1][N - n + 1][(2 * m + 1) * (2 * n + 1)];

#pragma scop
    ODelta[0] = 0;
    for (i = m; i <= M; i++)
        for (j = n; j <= N; j++) {
            Delta[i - m][j - n][0] = A[i][j] - A[i - m][j - n];
            for (k = i - m; k <= i + m; k++)
                for (l = j - n; l <= j + n; l++)
                    if (k > i - m || l > j - n)
                        Delta[i - m][j - n][(2 * n + 1) * k - (2 * n + 1) * i + l - j + (2 * m * n + m + n)] =
                            A[i][j] - A[k][l] +
                            Delta[i - m][j - n][(2 * n + 1) * k - (2 * n + 1) * i + l - j + (2 * m * n + m + n - 1)];
            ODelta[(N - n + 1) * i + j - (m * N - m * n + m + n - 1)] =
                Delta[i - m][j - n][(2 * m + 1) * (2 * n + 1) - 1] +
                ODelta[(N - n + 1) * i + j - (m * N - m * n + m + n)];
        }
    opt[0] = ODelta[(M - m + 1) * (N - n + 1)];
#pragma endscop
}

int main(void)
{
    static int A[M + m + 1][N + n + 1];
    int opt[1];
    int row, col;

    for (row = 0; row < M + m + 1; row++)
        for (col = 0; col < N + n + 1; col++)
            A[row][col] = (row * row * 7 + col * 13 + row * col * 3) % 61;
    opt[0] = 0;

    mot_detect_kernel(A, opt);

    printf("mot_detect m=%d n=%d M=%d N=%d\n", m, n, M, N);
    printf("opt %d\n", opt[0]);
    return 0;
}
