/* Seed 003's Example 2 (song_example2) on a window of a larger grid: the
 * rows and columns are numbered from `jb` and `kb`, which the caller puts
 * next to INT_MAX and INT_MIN. Re-scheduled whole, the first statements
 * run one column early: the scanner's loops and the statements' subscripts
 * must compute only values the original computes (`k - kb`, never
 * `-kb + k`, which negates INT_MIN). */
#include <limits.h>
#include <stdio.h>

#define JN 8
#define KN 7

static void window(int jb, int kb, double ZP[JN + 2][KN + 2], double ZQ[JN + 2][KN + 2],
                   const double ZR[JN + 2][KN + 2], const double ZZ[JN + 2][KN + 2],
                   const double za_edge[KN + 2], const double zb_edge[JN + 2])
{
    int j, k;
    double ZA[JN + 2][KN + 2];
    double ZB[JN + 2][KN + 2];

    for (k = kb + 2; k <= kb + KN; k++)
        ZA[1][k - kb] = za_edge[k - kb];
    for (j = jb + 2; j <= jb + JN; j++)
        ZB[j - jb][KN + 1] = zb_edge[j - jb];
    for (k = kb + 2; k <= kb + KN; k++)
        for (j = jb + 2; j <= jb + JN; j++)
            ZA[j - jb][k - kb] = ZP[j - jb - 1][k - kb + 1] + ZR[j - jb - 1][k - kb - 1];
    for (k = kb + 2; k <= kb + KN; k++)
        for (j = jb + 2; j <= jb + JN; j++)
            ZB[j - jb][k - kb] = ZQ[j - jb - 1][k - kb] + ZZ[j - jb][k - kb];
    for (k = kb + 2; k <= kb + KN; k++)
        for (j = jb + 2; j <= jb + JN; j++)
            ZP[j - jb][k - kb] = ZP[j - jb][k - kb] + ZA[j - jb][k - kb] - ZA[j - jb - 1][k - kb]
                                 - ZB[j - jb][k - kb] + ZB[j - jb][k - kb + 1];
    for (k = kb + 2; k <= kb + KN; k++)
        for (j = jb + 2; j <= jb + JN; j++)
            ZQ[j - jb][k - kb] = ZQ[j - jb][k - kb] + ZA[j - jb][k - kb] + ZA[j - jb - 1][k - kb]
                                 + ZB[j - jb][k - kb] + ZB[j - jb][k - kb + 1];
}

int main(void)
{
    static double ZP[JN + 2][KN + 2], ZQ[JN + 2][KN + 2], ZR[JN + 2][KN + 2], ZZ[JN + 2][KN + 2];
    double za_edge[KN + 2], zb_edge[JN + 2];
    int j, k, call;
    static const int bases[4][2] = {
        { 0, 0 }, { INT_MAX - JN - 1, INT_MAX - KN - 1 }, { INT_MIN, INT_MIN }, { INT_MIN, INT_MAX - KN - 1 }
    };

    for (j = 0; j < JN + 2; j++)
        for (k = 0; k < KN + 2; k++) {
            ZP[j][k] = (double)((j * 7 + k * 3) % 13) - 6.0;
            ZQ[j][k] = (double)((j * 5 + k * 11) % 17) - 8.0;
            ZR[j][k] = (double)((j * 3 + k * 13) % 7) - 3.0;
            ZZ[j][k] = (double)((j * 11 + k * 5) % 19) - 9.0;
        }
    for (k = 0; k < KN + 2; k++)
        za_edge[k] = 0.5 * (double)(k % 5) + 1.0;
    for (j = 0; j < JN + 2; j++)
        zb_edge[j] = -0.25 * (double)(j % 7) - 2.0;
    for (call = 0; call < 4; call++) {
        window(bases[call][0], bases[call][1], ZP, ZQ, ZR, ZZ, za_edge, zb_edge);
        double total = 0.0;
        for (j = 0; j < JN + 2; j++)
            for (k = 0; k < KN + 2; k++)
                total += (double)((j * 3 + k) % 11 + 1) * (ZP[j][k] - 2.0 * ZQ[j][k]);
        printf("call %d: %.17g\n", call, total);
    }
    return 0;
}
