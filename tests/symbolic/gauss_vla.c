/* gauss (corpus/gauss.c) with its image sizes as kernel parameters (VLAs)
 * and no size #define (T, the filter's offset, stays a #define): the
 * symbolic-size twin. Run as `./a.out N M`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define T 1

static void gauss_kernel(int n, int m, int in_image[n][m], const int Gauss[4], int gauss_image[n][m])
{
    int x, y, k;
    int tot[4];
    int g_tmp[n][m];
    int g_acc1[n][m][4];
    int g_acc2[n][m][4];

#pragma scop
    tot[0] = 0;
    for (k = T - 1; k <= 1 + T; k++)
        tot[k + 2 - T] = tot[k + 1 - T] + Gauss[k - T + 1];
    for (x = 1; x < n - 1; x++)
        for (y = 0; y < m; y++) {
            g_acc1[x][y][0] = 0;
            for (k = T - 1; k <= 1 + T; k++)
                g_acc1[x][y][k + 2 - T] = g_acc1[x][y][k + 1 - T] + in_image[x + k - T][y] * Gauss[k - T + 1];
            g_tmp[x][y] = g_acc1[x][y][3] / tot[3];
        }
    for (x = 1; x < n - 1; x++)
        for (y = 1; y < m - 1; y++) {
            g_acc2[x][y][0] = 0;
            for (k = T - 1; k <= 1 + T; k++)
                g_acc2[x][y][k + 2 - T] = g_acc2[x][y][k + 1 - T] + g_tmp[x][y + k - T] * Gauss[k - T + 1];
            gauss_image[x][y] = g_acc2[x][y][3] / tot[3];
        }
#pragma endscop
}

static void run(int n, int m)
{
    int in_image[n][m];
    int gauss_image[n][m];
    int Gauss[4] = {1, 2, 1, 0};
    long total = 0, weighted = 0;

    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++) {
            in_image[x][y] = (x * 37 + y * 101 + x * y) % 256;
            gauss_image[x][y] = 0;
        }
    gauss_kernel(n, m, in_image, Gauss, gauss_image);
    for (int x = 0; x < n; x++)
        for (int y = 0; y < m; y++) {
            total += gauss_image[x][y];
            weighted += (long)((x * m + y) % 97 + 1) * gauss_image[x][y];
        }
    printf("gauss n=%d m=%d sum %ld weighted %ld\n", n, m, total, weighted);
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 50, argc > 2 ? atoi(argv[2]) : 50);
    return 0;
}
