/* reg_detect (corpus/reg_detect.c) with its sizes as kernel parameters
 * (VLAs) and no #define: the symbolic-size twin. `tangent` is 2-D here
 * (`tangent[j][i]` for the corpus's `tangent[i + N * j]`, which is not
 * affine once N is a variable). Run as `./a.out N P`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

static void reg_detect_kernel(int n, int p, int tangent[n][n], int path[n][n])
{
    int i, j, k;
    int sum_t[n][n], mean[n][n];
    int diff[n][n][p], sum_d[n][n][p];

#pragma scop
    for (j = 0; j <= n - 1; j++) {
        sum_t[j][j] = tangent[j][j];
        for (i = j + 1; i <= n - 1; i++)
            sum_t[j][i] = sum_t[j][i - 1] + tangent[j][i];
    }
    for (j = 0; j <= n - 1; j++)
        for (i = j; i <= n - 1; i++)
            for (k = 0; k <= p - 1; k++)
                diff[j][i][k] = sum_t[j][i] + k;
    for (j = 0; j <= n - 1; j++)
        for (i = j; i <= n - 1; i++) {
            sum_d[j][i][0] = diff[j][i][0];
            for (k = 1; k <= p - 1; k++)
                sum_d[j][i][k] = sum_d[j][i][k - 1] + diff[j][i][k];
            mean[j][i] = sum_d[j][i][p - 1];
        }
    for (j = 0; j <= n - 1; j++)
        for (i = j; i <= n - 1; i++)
            if (j > 0)
                path[j][i] = path[j - 1][i - 1] + mean[j][i];
            else
                path[j][i] = mean[j][i];
#pragma endscop
}

static void run(int n, int p)
{
    int tangent[n][n];
    int path[n][n];
    long total = 0, weighted = 0;

    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            tangent[j][i] = ((j * n + i) * 13 + 5) % 17 - 8;
            path[j][i] = 0;
        }
    reg_detect_kernel(n, p, tangent, path);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            total += path[j][i];
            weighted += (long)(j * n + i + 1) * path[j][i];
        }
    printf("reg_detect n=%d p=%d path sum %ld weighted %ld\n", n, p, total, weighted);
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 6, argc > 2 ? atoi(argv[2]) : 64);
    return 0;
}
