/* gauss.c — 2-d Gaussian blur, kernel (4) of seed 001 (Alias, Baray, Darte,
 * "Bee+Cl@k", LCTES 2007), Figure 4.
 *
 * Temporaries: g_acc1[N][M][4], g_acc2[N][M][4] (10000 cells each),
 * g_tmp[N][M] (2500 cells, 2400 written: rows 1..N-2), and tot[4] (local in
 * the paper too, not listed in Figure 3). External: in_image, Gauss
 * (live-in), gauss_image (live-out).
 * Published (Figure 3): g_acc1, g_acc2 -> 1; g_tmp 2500 -> 2400 (all 2400
 * written cells are live at once: max-live 2400, so 2400 is optimal).
 *
 * Fixes to the printed code (it reads out of bounds):
 *  - tot[k+2-T] = tot[k+1-T] + Gauss[k-T] reads Gauss[-1] at k = 0:
 *    Gauss[k-T+1] here (Gauss[0..2]).
 *  - g_acc1 reads in_image[x+k][y], row N at x = N-2, k = 2:
 *    in_image[x+k-T][y] here, the window x-1..x+1 that matches the second
 *    pass's g_tmp[x][y+k-T].
 *  - the extracted text repeats the tot loop twice (an extraction artefact;
 *    the second copy would recompute the same values): one copy kept.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define M 50
#define N 50
#define T 1

static void gauss_kernel(int in_image[N][M], const int Gauss[4], int gauss_image[N][M])
{
    int x, y, k;
    int tot; /* polyfold: tot[k + 2 - T] -> tot */
    int g_tmp[3]; /* polyfold: g_tmp[x][y] -> g_tmp[y % 3] */
    int g_tmp_r0; /* polyfold: rotating indices, advanced by their loops */
    int g_acc1; /* polyfold: g_acc1[x][y][k + 2 - T] -> g_acc1 */
    int g_acc2; /* polyfold: g_acc2[x][y - 1][k + 2 - T] -> g_acc2 */

#pragma scop
    tot = 0;
    for (k = T - 1; k <= 1 + T; k++)
        tot = tot + Gauss[k - T + 1];
    for (x = 1; x < N - 1; x++) {
        for (y = 0; y <= 1; y++)
            if (y <= M - 1) {
                g_acc1 = 0;
                for (k = T - 1; k <= 1 + T; k++)
                    g_acc1 = g_acc1 + in_image[x + k - T][y] * Gauss[k - T + 1];
                g_tmp[y] = g_acc1 / tot;
            }
        for (y = 2; y <= M - 1; y++) {
            g_acc1 = 0;
            for (k = T - 1; k <= 1 + T; k++)
                g_acc1 = g_acc1 + in_image[x + k - T][y] * Gauss[k - T + 1];
            g_tmp[y % 3] = g_acc1 / tot;
            g_acc2 = 0;
            g_tmp_r0 = (y - 2) % 3;
            for (k = T - 1; k <= 1 + T; k++) {
                g_acc2 = g_acc2 + g_tmp[g_tmp_r0] * Gauss[k - T + 1];
                g_tmp_r0 = g_tmp_r0 + 1 < 3 ? g_tmp_r0 + 1 : 0;
            }
            gauss_image[x][y - 1] = g_acc2 / tot;
        }
    }
#pragma endscop
}

int main(void)
{
    static int in_image[N][M];
    static int gauss_image[N][M];
    int Gauss[4] = {1, 2, 1, 0};
    int x, y;
    long total = 0, weighted = 0;

    for (x = 0; x < N; x++)
        for (y = 0; y < M; y++) {
            in_image[x][y] = (x * 37 + y * 101 + x * y) % 256;
            gauss_image[x][y] = 0;
        }

    gauss_kernel(in_image, Gauss, gauss_image);

    for (x = 0; x < N; x++)
        for (y = 0; y < M; y++) {
            total += gauss_image[x][y];
            weighted += (long)((x * M + y) % 97 + 1) * gauss_image[x][y];
        }
    printf("gauss N=%d M=%d T=%d\n", N, M, T);
    printf("gauss_image sum %ld weighted %ld\n", total, weighted);
    printf("gauss_image[1][1] %d [N/2][M/2] %d [N-2][M-2] %d\n", gauss_image[1][1], gauss_image[N / 2][M / 2],
           gauss_image[N - 2][M - 2]);
    return 0;
}
