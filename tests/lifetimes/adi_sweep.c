/* Issue 48: an alternating-direction sweep (a tridiagonal solve per row,
 * forward then backward) inside a time loop. The coefficients p and q of
 * one row are dead once that row is solved: one row each, for every n,
 * where main declares them. */
#include <stdio.h>

#define N 40

static void sweep(int steps, int n, double u[N][N], double p[N][N], double q[N][N])
{
    int t, i, j;
    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++) {
            p[i][0] = 0.0;
            q[i][0] = u[i][0];
            for (j = 1; j < n - 1; j++) {
                p[i][j] = 0.25 / (2.0 - 0.25 * p[i][j - 1]);
                q[i][j] = (u[i][j] + 0.25 * q[i][j - 1]) / (2.0 - 0.25 * p[i][j - 1]);
            }
            for (j = n - 2; j >= 1; j--)
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
        }
    }
}

int main(void)
{
    static double u[N][N];
    double p[N][N], q[N][N];
    int n, i, j;
    for (n = 3; n <= N; n += 9) {
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                u[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
        sweep(4, n, u, p, q);
        for (i = 0; i < n; i += 5)
            printf("%d %d %.9f\n", n, i, u[i][n / 2]);
    }
    return 0;
}
