/* Temporaries accessed with a stride: t is written at t[2 * i][1] and
 * read back in reverse (every value is live at once), so it needs n
 * cells, one per iteration; s is written at s[3 * i + 1][j] and read in
 * reverse, n * m cells; v is a recurrence along v[2 * i] that keeps two
 * values live. Declared 2n x 3, (3n + 1) x m and 2n. Run as
 * `./a.out N M`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static void strided_kernel(int n, int m, double in[n][m], double out[n][m])
{
    int i, j;
    double t[2 * n][3]; /* one column of three, every other row */
    double s[3 * n + 1][m];
    double v[2 * n];

#pragma scop
    for (i = 0; i < n; i++)
        t[2 * i][1] = in[i][0] * 0.5;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            s[3 * i + 1][j] = in[i][j] - t[2 * i][1];
    for (i = n - 1; i >= 0; i--)
        for (j = m - 1; j >= 0; j--)
            out[i][j] = s[3 * i + 1][j] + t[2 * i][1] * (double)j;
    v[0] = in[0][0];
    v[2] = in[0][0] + 1.0;
    for (i = 2; i < n; i++)
        v[2 * i] = v[2 * i - 2] + v[2 * i - 4] * 0.5 + in[i][0];
    out[0][0] = v[2 * n - 2];
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
    strided_kernel(n, m, in, out);
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            sum += out[i][j] * (double)(i + j + 1);
    printf("%d %d %.6f\n", n, m, sum);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    run(n < 2 ? 2 : n, argc > 2 ? atoi(argv[2]) : 30);
    return 0;
}
