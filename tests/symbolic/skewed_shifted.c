/* A temporary written along an anti-diagonal footprint, D[i - j + m - 1][j]
 * (declared (n + m - 1) x m, every value live at once between the nests):
 * in the write's basis (c0 + c1, c1) its rows are i + m - 1 and j, so it
 * needs n * m cells, and shifted by m - 1 no access wraps: D[n][m]
 * accessed as D[i][j]. A second one, E[2 * i + 2 * m][j], is shifted and
 * strided along its rows: E[n][m] accessed as E[i][j]. Run as
 * `./a.out N M`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static void shifted_kernel(int n, int m, double in[n][m], double out[n][m])
{
    int i, j;
    double D[n + m - 1][m];
    double E[2 * n + 2 * m][m];

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            D[i - j + m - 1][j] = in[i][j] * 2.0 - (double)j;
            E[2 * i + 2 * m][j] = in[i][j] + (double)i;
        }
    for (i = n - 1; i >= 0; i--)
        for (j = m - 1; j >= 0; j--)
            out[i][j] = D[i - j + m - 1][j] * (double)(i + 1) - E[2 * i + 2 * m][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int m = argc > 2 ? atoi(argv[2]) : 30;
    double (*in)[m] = malloc(sizeof(double[n][m]));
    double (*out)[m] = malloc(sizeof(double[n][m]));
    double sum = 0.0;
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11);
    shifted_kernel(n, m, in, out);
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            sum += out[i][j] * (double)(i + j + 1);
    printf("%d %d %.6f\n", n, m, sum);
    free(in);
    free(out);
    return 0;
}
