/* durbin (corpus/durbin.c) with its size as a kernel parameter (VLAs) and
 * no #define: the symbolic-size twin. Run as `./a.out N`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static void durbin_kernel(int n, const double r[n], double out[n])
{
    int i, k;
    double y[n][n];
    double sum[n][n];
    double alpha[n];
    double beta[n];

#pragma scop
    y[0][0] = r[0];
    beta[0] = 1.0;
    alpha[0] = r[0];
    for (k = 1; k <= n - 1; k++) {
        beta[k] = beta[k - 1] - alpha[k - 1] * alpha[k - 1] * beta[k - 1];
        sum[0][k] = r[k];
        for (i = 0; i <= k - 1; i++)
            sum[i + 1][k] = sum[i][k] + r[k - i - 1] * y[i][k - 1];
        alpha[k] = -sum[k][k] * beta[k];
        for (i = 0; i <= k - 1; i++)
            y[i][k] = y[i][k - 1] + alpha[k] * y[k - i - 1][k - 1];
        y[k][k] = alpha[k];
    }
    for (i = 0; i <= n - 1; i++)
        out[i] = y[i][n - 1];
#pragma endscop
}

static void run(int n)
{
    double r[n];
    double out[n];
    double total = 0.0, weighted = 0.0;

    r[0] = 0.5;
    for (int i = 1; i < n; i++)
        r[i] = 1.0 / (double)(2 * i + 3) - 0.01 * (double)(i % 5);
    durbin_kernel(n, r, out);
    for (int i = 0; i < n; i++) {
        total += out[i];
        weighted += (double)(i % 11 + 1) * out[i];
    }
    printf("durbin n=%d out sum %.9e weighted %.9e last %.9e\n", n, total, weighted, out[n - 1]);
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 100);
    return 0;
}
