/* durbin.c — Durbin's Toeplitz solver, the running example of seed 001
 * (Alias, Baray, Darte, "Bee+Cl@k", LCTES 2007), Figure 2(a).
 *
 * The figure's code is not in the extracted text; it is reconstructed from
 * section 3's description: S1 writes y[0][0]; S2 (k, i) reads y[i][k-1];
 * S3 (k, i), 1 <= k <= N-1, 0 <= i <= k-1, writes y[i][k] and reads
 * y[i][k-1] and y[k-i-1][k-1]; S4 (k) writes y[k][k]; S5 (i) reads
 * y[i][N-1] into the output. alpha, beta (N cells) and sum (N x N) are the
 * other temporaries; r is the input and out the output (both external).
 *
 * Published (seed 001 Figure 3): alpha, beta, sum -> 1 cell each;
 * y 10000 -> 200 = N x 2 (heuristics, y[i][k % 2]) -> 197 = 2N - 3 (optimal,
 * (2i + k) mod 197); max-live bound 148.
 *
 * Fixes: none needed (no out-of-bounds access). Element type double.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 100

static void durbin_kernel(const double r[N], double out[N])
{
    int i, k;
    double y[2 * N - 1]; /* polyfold: y[i][k] -> y[(2 * i + k) % (2 * N - 1)] */
    int y_r0, y_r1, y_r2, y_r3; /* polyfold: rotating indices, advanced by their loops */
    double sum; /* polyfold: sum[i][k] -> sum */
    double alpha; /* polyfold: alpha[k] -> alpha */
    double beta; /* polyfold: beta[k] -> beta */

#pragma scop
    y[0] = r[0];
    beta = 1.0;
    alpha = r[0];
    for (k = 1; k <= N - 1; k++) {
        beta = beta - alpha * alpha * beta;
        sum = r[k];
        y_r0 = (k - 1) % (2 * N - 1);
        for (i = 0; i <= k - 1; i++) {
            sum = sum + r[k - i - 1] * y[y_r0];
            y_r0 = y_r0 + 2 < 2 * N - 1 ? y_r0 + 2 : y_r0 + 2 - (2 * N - 1);
        }
        alpha = -sum * beta;
        y_r1 = k % (2 * N - 1);
        y_r2 = (k - 1) % (2 * N - 1);
        y_r3 = (3 * k - 3) % (2 * N - 1);
        for (i = 0; i <= k - 1; i++) {
            y[y_r1] = y[y_r2] + alpha * y[y_r3];
            y_r1 = y_r1 + 2 < 2 * N - 1 ? y_r1 + 2 : y_r1 + 2 - (2 * N - 1);
            y_r2 = y_r2 + 2 < 2 * N - 1 ? y_r2 + 2 : y_r2 + 2 - (2 * N - 1);
            y_r3 = y_r3 >= 2 ? y_r3 - 2 : y_r3 - 2 + (2 * N - 1);
        }
        y[(3 * k) % (2 * N - 1)] = alpha;
    }
    for (i = 0; i <= N - 1; i++)
        out[i] = y[(2 * i + N - 1) % (2 * N - 1)];
#pragma endscop
}

int main(void)
{
    static double r[N];
    static double out[N];
    int i;
    double total = 0.0, weighted = 0.0;

    r[0] = 0.5;
    for (i = 1; i < N; i++)
        r[i] = (double)((i * 7) % 11 - 5) / (double)(40 + 3 * i);
    for (i = 0; i < N; i++)
        out[i] = 0.0;

    durbin_kernel(r, out);

    for (i = 0; i < N; i++) {
        total += out[i];
        weighted += (double)(i % 7 + 1) * out[i];
    }
    printf("durbin N=%d\n", N);
    printf("out sum %.6e\n", total);
    printf("out weighted %.6e\n", weighted);
    printf("out[0] %.6e out[N/2] %.6e out[N-1] %.6e\n", out[0], out[N / 2], out[N - 1]);
    return 0;
}
