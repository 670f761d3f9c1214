/* Temporaries written along skewed footprints, B[i + j][j] and
 * C[i][i + j], and read back after the whole nest (every value is live at
 * once): declared (n + m) x m and n x (n + m), each needs exactly n * m
 * cells, one per iteration. Run as `./a.out N M`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static void skewed_kernel(int n, int m, double in[n][m], double out[n][m])
{
    int i, j;
    double B[n + m][m]; /* the skewed temporary */
    double C[n][n + m];

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            B[i + j][j] = in[i][j] * 2.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            C[i][i + j] = in[i][j] - 1.0;
    for (i = n - 1; i >= 0; i--)
        for (j = m - 1; j >= 0; j--)
            out[i][j] = B[i + j][j] + (double)(i - j) * C[i][i + j];
#pragma endscop
}

static void run(int n, int m)
{
    double (*in)[m] = malloc(sizeof(double[n][m]));
    double (*out)[m] = malloc(sizeof(double[n][m]));
    double sum = 0.0;
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11);
    skewed_kernel(n, m, in, out);
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            sum += out[i][j] * (double)(i + 1);
    printf("%d %d %.6f\n", n, m, sum);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 40, argc > 2 ? atoi(argv[2]) : 30);
    return 0;
}
