/* Row sums of an upper triangle, in the shape of reg_detect (seed 001,
 * Figure 4), with literal sizes in the SCoP (N = 6): no parameter, so
 * sum_t folds with constant moduli, onto sum_t[j % 3][(i - 2 * j) mod 9];
 * its subscripts print from the IR (collected: `9 - j` for `sum_t[j][j]`,
 * and `i - 2 * j + 8` for `sum_t[j][i - 1]`). triangle_formula.c is the
 * same kernel with N in the SCoP. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define N 6

static void triangle_kernel(const int t[N * N], int path[N][N])
{
    int i, j;
    int sum_t[N][N], mean[N][N];

#pragma scop
    for (j = 0; j <= 5; j++) {
        sum_t[j][j] = t[7 * j];
        for (i = j + 1; i <= 5; i++)
            sum_t[j][i] = sum_t[j][i - 1] + t[i + 6 * j];
    }
    for (j = 0; j <= 5; j++)
        for (i = j; i <= 5; i++)
            mean[j][i] = 3 * sum_t[j][i] + 1;
    for (j = 0; j <= 5; j++)
        for (i = j; i <= 5; i++)
            if (j > 0)
                path[j][i] = path[j - 1][i - 1] + mean[j][i];
            else
                path[j][i] = mean[j][i];
#pragma endscop
}

int main(void)
{
    int t[N * N];
    int path[N][N];
    int i, j;
    for (i = 0; i < N * N; i++)
        t[i] = (i * 13 + 5) % 17 - 8;
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++)
            path[j][i] = 0;
    triangle_kernel(t, path);
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++)
            printf("path[%d][%d] = %d\n", j, i, path[j][i]);
    return 0;
}
