/* Rotating indices (issue 18, strength reduction of `%`): Durbin's
 * recurrence in three shapes whose folded y (y[i][k] -> y[(2i + k) % (2N - 3)])
 * is accessed in innermost loops.
 *  - toeplitz_decl: the inner loops declare their iterators (`for (int i`),
 *    so the rotating indices are declared there too;
 *  - toeplitz_down: the second inner loop runs downwards;
 *  - toeplitz_guarded: the first inner loop starts one early, its statement
 *    guarded by `i >= 1`, so the argument of y[i - 1][k - 1] is negative at
 *    the loop's start (k = 1, i = 0) and the start takes C's `%` back into
 *    range. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 12

static void toeplitz_decl(const double r[N], double out[N])
{
    int k;
    double y[N][N];
    double sum[N][N];
    double alpha[N];
    double beta[N];

#pragma scop
    y[0][0] = r[0];
    beta[0] = 1.0;
    alpha[0] = r[0];
    for (k = 1; k <= N - 1; k++) {
        beta[k] = beta[k - 1] - alpha[k - 1] * alpha[k - 1] * beta[k - 1];
        sum[0][k] = r[k];
        for (int i = 0; i <= k - 1; i++)
            sum[i + 1][k] = sum[i][k] + r[k - i - 1] * y[i][k - 1];
        alpha[k] = -sum[k][k] * beta[k];
        for (int i = 0; i <= k - 1; i++)
            y[i][k] = y[i][k - 1] + alpha[k] * y[k - i - 1][k - 1];
        y[k][k] = alpha[k];
    }
    for (int i = 0; i <= N - 1; i++)
        out[i] = y[i][N - 1];
#pragma endscop
}

static void toeplitz_down(const double r[N], double out[N])
{
    int i, k;
    double y[N][N];
    double sum[N][N];
    double alpha[N];
    double beta[N];

#pragma scop
    y[0][0] = r[0];
    beta[0] = 1.0;
    alpha[0] = r[0];
    for (k = 1; k <= N - 1; k++) {
        beta[k] = beta[k - 1] - alpha[k - 1] * alpha[k - 1] * beta[k - 1];
        sum[0][k] = r[k];
        for (i = 0; i <= k - 1; i++)
            sum[i + 1][k] = sum[i][k] + r[k - i - 1] * y[i][k - 1];
        alpha[k] = -sum[k][k] * beta[k];
        for (i = k - 1; i >= 0; i--)
            y[i][k] = y[i][k - 1] + alpha[k] * y[k - i - 1][k - 1];
        y[k][k] = alpha[k];
    }
    for (i = 0; i <= N - 1; i++)
        out[i] = y[i][N - 1];
#pragma endscop
}

static void toeplitz_guarded(const double r[N], double out[N])
{
    int i, k;
    double y[N][N];
    double sum[N][N];
    double alpha[N];
    double beta[N];

#pragma scop
    y[0][0] = r[0];
    beta[0] = 1.0;
    alpha[0] = r[0];
    for (k = 1; k <= N - 1; k++) {
        beta[k] = beta[k - 1] - alpha[k - 1] * alpha[k - 1] * beta[k - 1];
        sum[0][k] = r[k];
        for (i = 0; i <= k; i++)
            if (i >= 1)
                sum[i][k] = sum[i - 1][k] + r[k - i] * y[i - 1][k - 1];
        alpha[k] = -sum[k][k] * beta[k];
        for (i = 0; i <= k - 1; i++)
            y[i][k] = y[i][k - 1] + alpha[k] * y[k - i - 1][k - 1];
        y[k][k] = alpha[k];
    }
    for (i = 0; i <= N - 1; i++)
        out[i] = y[i][N - 1];
#pragma endscop
}

int main(void)
{
    double r[N], out[N];
    int i;
    r[0] = 0.5;
    for (i = 1; i < N; i++)
        r[i] = (double)((i * 7) % 11 - 5) / (double)(40 + 3 * i);
    toeplitz_decl(r, out);
    for (i = 0; i < N; i++)
        printf("decl out[%d] = %.9e\n", i, out[i]);
    toeplitz_down(r, out);
    for (i = 0; i < N; i++)
        printf("down out[%d] = %.9e\n", i, out[i]);
    toeplitz_guarded(r, out);
    for (i = 0; i < N; i++)
        printf("guarded out[%d] = %.9e\n", i, out[i]);
    return 0;
}
