/* A Toeplitz solver in the shape of Durbin's (seed 001, Figure 2(a)): y[i][k]
 * folds onto (2i + k) mod (2N - 3) cells, which prints from the IR as
 * canonical subscripts (`2 * i + k - 1`, `3 * k - 2 * i - 3`, `3 * k`,
 * `2 * i + N - 1`); y's declaration keeps its trailing comment before the
 * pin and gets a comment that states the mapping. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 12

static void toeplitz_kernel(const double r[N], double out[N])
{
    int i, k;
    double y[N][N]; /* temporary */
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
    toeplitz_kernel(r, out);
    for (i = 0; i < N; i++)
        printf("out[%d] = %.9e\n", i, out[i]);
    return 0;
}
