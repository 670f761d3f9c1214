/* A skewed temporary B[i + j][j] (declared (n + m) x m, every value live
 * at once between the nests) whose size n is declared nowhere alone: the
 * program is valid for n = 0 (no iteration runs), so the new extent n is
 * not proven at least 1 and is guarded, n > 1 ? n : 1. Run as
 * `./a.out N M`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static void guarded_kernel(int n, int m, double in[n + m], double out[m])
{
    int i, j;
    double B[n + m][m];

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            B[i + j][j] = in[i + j] * 2.0 - (double)j;
    for (i = n - 1; i >= 0; i--)
        for (j = m - 1; j >= 0; j--)
            out[j] = out[j] * 0.5 + B[i + j][j] * (double)(i + 1);
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int m = argc > 2 ? atoi(argv[2]) : 30;
    double *in = malloc(sizeof(double) * (size_t)(n + m));
    double *out = malloc(sizeof(double) * (size_t)m);
    double sum = 0.0;
    int k;

    for (k = 0; k < n + m; k++)
        in[k] = (double)((k * 7) % 11);
    for (k = 0; k < m; k++)
        out[k] = 1.0;
    guarded_kernel(n, m, in, out);
    for (k = 0; k < m; k++)
        sum += out[k] * (double)(k + 1);
    printf("%d %d %.6f\n", n, m, sum);
    free(in);
    free(out);
    return 0;
}
