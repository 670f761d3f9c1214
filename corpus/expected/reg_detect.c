/* reg_detect.c — real-time regularity detection (robot vision), kernel (2)
 * of seed 001 (Alias, Baray, Darte, "Bee+Cl@k", LCTES 2007), Figure 4.
 *
 * Temporaries: sum_t[N][N], mean[N][N] (36 cells each, 21 used: the upper
 * triangle i >= j), diff[N][N][P] and sum_d[N][N][P] (2304 cells each).
 * External: tangent (live-in), path (live-out).
 * Published (Figure 3): sum_t, mean 36 -> 36 (heuristics) -> 27 (optimal);
 * diff 2304 -> 2304 -> 1728; sum_d 2304 -> 1. Max-live: 21, 21, 1344, 1.
 *
 * Fixes to the printed code (it reads out of bounds):
 *  - tangent is declared tangent[M] (5 cells) but read at (N+1)*j and
 *    i+N*j, up to index 35: declared tangent[N*N] here. M is therefore no
 *    longer used; it is kept as the paper's parameter.
 *  - the accumulation reads diff[i][i][k]; it must be diff[j][i][k]
 *    (otherwise diff[j][i][k], j < i, is never read and the triangle is
 *    read twice).
 * Deliberate change for observability: diff[j][i][k] = sum_t[j][i] + k
 * (the paper copies sum_t[j][i] into all P cells, so a wrong contraction
 * that merged diff cells of one (j, i) would be invisible). Access pattern
 * unchanged. The printed punctuation typos (`k=1:`, `⊢`) are fixed too.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 6
#define M 5
#define P 64

static void reg_detect_kernel(const int tangent[N * N], int path[N][N])
{
    int i, j, k;
    int sum_t, mean; /* polyfold: sum_t[j][i] -> sum_t, mean[j][i] -> mean */
    int diff[P], sum_d; /* polyfold: diff[j][i][k] -> diff[k], sum_d[j][i][k] -> sum_d */

#pragma scop
    for (j = 0; j <= N - 1; j++) {
        sum_t = tangent[(N + 1) * j];
        for (k = 0; k <= P - 1; k++)
            diff[k] = sum_t + k;
        sum_d = diff[0];
        for (k = 1; k <= P - 1; k++)
            sum_d = sum_d + diff[k];
        mean = sum_d;
        if (j > 0)
            path[j][j] = path[j - 1][j - 1] + mean;
        else
            path[j][j] = mean;
        for (i = j + 1; i <= N - 1; i++) {
            sum_t = sum_t + tangent[i + N * j];
            for (k = 0; k <= P - 1; k++)
                diff[k] = sum_t + k;
            sum_d = diff[0];
            for (k = 1; k <= P - 1; k++)
                sum_d = sum_d + diff[k];
            mean = sum_d;
            if (j > 0)
                path[j][i] = path[j - 1][i - 1] + mean;
            else
                path[j][i] = mean;
        }
    }
#pragma endscop
}

int main(void)
{
    int tangent[N * N];
    int path[N][N];
    int i, j;
    long total = 0, weighted = 0;

    for (i = 0; i < N * N; i++)
        tangent[i] = (i * 13 + 5) % 17 - 8;
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++)
            path[j][i] = 0;

    reg_detect_kernel(tangent, path);

    printf("reg_detect N=%d M=%d P=%d\n", N, M, P);
    for (j = 0; j < N; j++) {
        for (i = 0; i < N; i++) {
            total += path[j][i];
            weighted += (long)(j * N + i + 1) * path[j][i];
            printf(" %d", path[j][i]);
        }
        printf("\n");
    }
    printf("path sum %ld weighted %ld\n", total, weighted);
    return 0;
}
