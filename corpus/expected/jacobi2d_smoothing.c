/* jacobi2d_smoothing.c — 5-step Jacobi smoothing (multigrid), seed 000
 * (Bhaskaracharya, Bondhugula, Cohen, "SMO", POPL 2016) Figure 7(a) and
 * Table 1 ("jacobi-2d-smoothing").
 *
 * Step k (S0..S4) computes A_k from A_{k-1} (A0 from the input grid a):
 * interior points get a[i][j] + (sum of the 4 neighbours), boundary points
 * (i or j equal to 0 or N-1) are copied. The paper writes each step as one
 * statement with `(!isbound(i, j)) ? stencil : copy`; that expression reads
 * a[i-1][j] etc. at the boundary in the polyhedral model (C evaluates only
 * one branch, the model reads both), i.e. out of bounds at i = 0. Here each
 * step is an if/else on the same affine condition, so every modelled
 * access is in bounds; the values are the same.
 * As DESIGN.md asks, the input grid a is initialised inside the SCoP (from
 * the external input `in`) and the output grid A4 is consumed inside it (a
 * weighted sum into the local scalar `result`, returned and printed), so a
 * and A0..A4 are all temporaries.
 *
 * Temporaries: a, A0, A1, A2, A3, A4, each N x N.
 * Target (Table 1, Fig. 7(e)): the five step arrays in one (N+2) x N buffer,
 * A[(i + 3 - 2k) % (N + 2)][j % N] (baseline: A_{k % 2}, 2N^2); max-live
 * of those values N^2 + N - 1 (DESIGN.md); a may share the buffer too.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64

static double jacobi2d_smoothing_kernel(double in[N][N])
{
    int i, j;
    double a[3][N]; /* polyfold: a[i][j] -> a[i % 3][j] */
    int i_r0, i_r1, i_r2; /* polyfold: rotating indices, advanced by their loops */
    double A0[3][N]; /* polyfold: A0[i][j] -> A0[i % 3][j] */
    double A1[3][N]; /* polyfold: A1[i][j] -> A1[i % 3][j] */
    double A2[3][N]; /* polyfold: A2[i][j] -> A2[i % 3][j] */
    double A3[3][N]; /* polyfold: A3[i][j] -> A3[i % 3][j] */
    double A4[N]; /* polyfold: A4[i][j] -> A4[j] */
    double result = 0.0;

#pragma scop
    i_r0 = 0;
    i_r1 = 2;
    i_r2 = 1;
    for (i = 0; i <= N + 4; i++) {
        if (i <= N - 1)
            for (j = 0; j < N; ++j)
                a[i_r0][j] = in[i][j];
        if (i >= 1 && i <= N) {
            for (j = 0; j < N; ++j)
                if (i == 1 || i == N || j == 0 || j == N - 1)
                    A0[i_r1][j] = a[i_r1][j];
                else
                    A0[i_r1][j] = a[i_r1][j] + (a[i_r2][j] + a[i_r0][j] + a[i_r1][j - 1] + a[i_r1][j + 1]);
        }
        if (i >= 2 && i <= N + 1) {
            for (j = 0; j < N; ++j)
                if (i == 2 || i == N + 1 || j == 0 || j == N - 1)
                    A1[i_r2][j] = A0[i_r2][j];
                else
                    A1[i_r2][j] = A0[i_r2][j] + (A0[i_r0][j] + A0[i_r1][j] + A0[i_r2][j - 1] + A0[i_r2][j + 1]);
        }
        if (i >= 3 && i <= N + 2) {
            for (j = 0; j < N; ++j)
                if (i == 3 || i == N + 2 || j == 0 || j == N - 1)
                    A2[i_r0][j] = A1[i_r0][j];
                else
                    A2[i_r0][j] = A1[i_r0][j] + (A1[i_r1][j] + A1[i_r2][j] + A1[i_r0][j - 1] + A1[i_r0][j + 1]);
        }
        if (i >= 4 && i <= N + 3) {
            for (j = 0; j < N; ++j)
                if (i == 4 || i == N + 3 || j == 0 || j == N - 1)
                    A3[i_r1][j] = A2[i_r1][j];
                else
                    A3[i_r1][j] = A2[i_r1][j] + (A2[i_r2][j] + A2[i_r0][j] + A2[i_r1][j - 1] + A2[i_r1][j + 1]);
        }
        if (i >= 5) {
            for (j = 0; j < N; ++j)
                if (i == 5 || i == N + 4 || j == 0 || j == N - 1)
                    A4[j] = A3[i_r2][j];
                else
                    A4[j] = A3[i_r2][j] + (A3[i_r0][j] + A3[i_r1][j] + A3[i_r2][j - 1] + A3[i_r2][j + 1]);
            for (j = 0; j < N; ++j)
                result += (double)(((i - 5) * 3 + j) % 7 + 1) * A4[j];
        }
        i_r0 = i_r0 + 1 < 3 ? i_r0 + 1 : 0;
        i_r1 = i_r1 + 1 < 3 ? i_r1 + 1 : 0;
        i_r2 = i_r2 + 1 < 3 ? i_r2 + 1 : 0;
    }
#pragma endscop
    return result;
}

int main(void)
{
    static double in[N][N];
    int i, j;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 29 + j * 17 + 7) % 31) - 15.0;

    printf("jacobi2d_smoothing N=%d steps=5\n", N);
    printf("result %.9e\n", jacobi2d_smoothing_kernel(in));
    return 0;
}
