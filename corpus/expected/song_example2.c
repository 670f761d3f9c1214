/* song_example2.c — Example 2 of seed 003 (Song, Wang, Li, "A
 * Polynomial-Time Algorithm for Memory Space Reduction"), Figure 3(a),
 * "a more complex example which resembles one of the well-known Livermore
 * loops" (m = 4 loop nests of depth n = 2).
 *
 * The four nests L1..L4 as printed (Fortran DO K = 2, KN / DO J = 2, JN,
 * K outer, J inner), in C with the same 1-based subscripts Z(J, K) ->
 * Z[J][K]; every array is declared [JN+2][KN+2] (the paper's
 * [1:JN+1, 1:KN+1]; index 0 unused).
 * Local array regions (paper): ZA(2:JN, 2:KN) and ZB(2:JN, 2:KN). ZA and ZB
 * are local temporaries here. Their non-local parts that the loops read
 * before any write, ZA(1, 2:KN) (read as ZA(J-1, K) at J = 2) and
 * ZB(2:JN, KN+1) (read as ZB(J, K+1) at K = KN), are upward-exposed in the
 * paper; so that ZA and ZB have no live-in cells, the SCoP starts with two
 * loops that write them from the external inputs za_edge and zb_edge.
 * ZP, ZQ (input and output), ZR, ZZ (input) are external.
 * Sizes JN = 24, KN = 20 are our choice (the paper's Example 2 has none).
 * Targets: unfused, all (JN-1)(KN-1) = 437 local values of each of ZA and
 * ZB are live at once; after the paper's shifting (p(L1) = (1, 0),
 * p(L2) = (0, 0), p(L3) = p(L4) = (1, 0)) and fusion, ZA's local region
 * needs 2 cells and ZB's JN cells (ZB1(1:JN)) (roadmap: schedule changes).
 * Fixes: none needed.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define JN 24
#define KN 20

static void song_example2(double ZP[JN + 2][KN + 2], double ZQ[JN + 2][KN + 2], double ZR[JN + 2][KN + 2],
                          double ZZ[JN + 2][KN + 2], const double za_edge[KN + 2], const double zb_edge[JN + 2])
{
    int j, k;
    double ZA[2]; /* polyfold: ZA[j][k] -> ZA[j % 2] */
    double ZB[JN > 1 ? JN : 1]; /* polyfold: ZB[j][k] -> ZB[(k + JN - j) % JN] */

#pragma scop
    if (JN <= 1)
        for (k = 2; k <= KN - 1; k++)
            ZA[1] = za_edge[k];
    if (KN >= 2 && JN <= 1)
        ZA[1] = za_edge[KN];
    if (JN >= 2 && KN <= 0)
        for (j = 2; j <= JN; j++)
            ZB[KN + JN - j + 1] = zb_edge[j];
    if (KN == 1 && JN >= 2)
        for (j = 2; j <= JN; j++)
            ZB[(KN + JN - j + 1) % JN] = zb_edge[j];
    if (KN >= 2 && JN >= 2)
        for (j = 2; j <= JN; j++)
            ZB[(JN - j + 2) % JN] = ZQ[j - 1][2] + ZZ[j][2];
    if (JN >= 2)
        for (k = 2; k <= KN - 1; k++) {
            ZA[1] = za_edge[k];
            for (j = 2; j <= JN; j++) {
                ZA[j % 2] = ZP[j - 1][k + 1] + ZR[j - 1][k - 1];
                ZB[(k + JN - j + 1) % JN] = ZQ[j - 1][k + 1] + ZZ[j][k + 1];
                ZP[j][k] = ZP[j][k] + ZA[j % 2] - ZA[(j - 1) % 2] - ZB[(k + JN - j) % JN] + ZB[(k + JN - j + 1) % JN];
                ZQ[j][k] = ZQ[j][k] + ZA[j % 2] + ZA[(j - 1) % 2] + ZB[(k + JN - j) % JN] + ZB[(k + JN - j + 1) % JN];
            }
        }
    if (KN >= 2 && JN >= 2) {
        ZA[1] = za_edge[KN];
        for (j = 2; j <= JN; j++) {
            ZB[(KN + JN - j + 1) % JN] = zb_edge[j];
            ZA[j % 2] = ZP[j - 1][KN + 1] + ZR[j - 1][KN - 1];
            ZP[j][KN] = ZP[j][KN] + ZA[j % 2] - ZA[(j - 1) % 2] - ZB[(KN + JN - j) % JN] + ZB[(KN + JN - j + 1) % JN];
            ZQ[j][KN] = ZQ[j][KN] + ZA[j % 2] + ZA[(j - 1) % 2] + ZB[(KN + JN - j) % JN] + ZB[(KN + JN - j + 1) % JN];
        }
    }
#pragma endscop
}

int main(void)
{
    static double ZP[JN + 2][KN + 2], ZQ[JN + 2][KN + 2], ZR[JN + 2][KN + 2], ZZ[JN + 2][KN + 2];
    double za_edge[KN + 2], zb_edge[JN + 2];
    int j, k;
    double total_p = 0.0, total_q = 0.0, weighted = 0.0;

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

    song_example2(ZP, ZQ, ZR, ZZ, za_edge, zb_edge);

    for (j = 0; j < JN + 2; j++)
        for (k = 0; k < KN + 2; k++) {
            total_p += ZP[j][k];
            total_q += ZQ[j][k];
            weighted += (double)((j * 3 + k) % 11 + 1) * (ZP[j][k] - 2.0 * ZQ[j][k]);
        }
    printf("song_example2 JN=%d KN=%d\n", JN, KN);
    printf("ZP sum %.9e ZQ sum %.9e weighted %.9e\n", total_p, total_q, weighted);
    return 0;
}
