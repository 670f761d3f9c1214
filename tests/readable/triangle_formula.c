/* triangle.c with the size N in the SCoP: sum_t folds onto
 * sum_t[j % ((N + 1) / 2)][(i - 2 * j) mod ((3 * N + 1) / 2)] for every
 * N (the moduli fitted through even sizes, rounded up for odd ones), with
 * the moduli added to a negative combination counted apart:
 * `(3 * N + 1) / 2 - j` for `sum_t[j][j]`. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define N 6

static void triangle_kernel(const int t[N * N], int path[N][N])
{
    int i, j;
    int sum_t[N][N], mean[N][N];

#pragma scop
    for (j = 0; j <= N - 1; j++) {
        sum_t[j][j] = t[(N + 1) * j];
        for (i = j + 1; i <= N - 1; i++)
            sum_t[j][i] = sum_t[j][i - 1] + t[i + N * j];
    }
    for (j = 0; j <= N - 1; j++)
        for (i = j; i <= N - 1; i++)
            mean[j][i] = 3 * sum_t[j][i] + 1;
    for (j = 0; j <= N - 1; j++)
        for (i = j; i <= N - 1; i++)
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
