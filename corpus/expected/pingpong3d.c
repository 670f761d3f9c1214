/* pingpong3d.c — time-iterated 3-d stencil with a ping-pong buffer, seed 000
 * (Bhaskaracharya, Bondhugula, Cohen, "SMO", POPL 2016) Table 1
 * ("3-d stencil", a code similar to Fig. 1(a) with 3-d arrays).
 *
 * Each time step computes P's interior from a 7-point stencil of Q and
 * copies it back into Q's interior. Q's boundary faces are read at every
 * step and never rewritten, so they need a home of their own.
 * As DESIGN.md asks, Q is initialised (from the external input `in`) and
 * consumed (weighted sum into the local scalar `result`) inside the SCoP,
 * so P and Q are both temporaries.
 *
 * The initialisation writes exactly the cells that are read: the interior
 * and the six faces without their edges and corners.
 * Temporaries: P[N+2][N+2][N+2] (interior N^3 used), Q[N+2][N+2][N+2]:
 * 2N^3 time-iterated cells plus the 6N^2 boundary-face cells.
 * Target (Table 1): 2N^3 -> (N+2)N^2, "about N^3 + 2N^2"
 * (A[(i - 3t) % (N + 2)][j % N][k % N] and A[(i - 3t - 1) % (N + 2)][j % N][k % N]),
 * copy loop deleted; max-live N^3 + N^2; plus the boundary cells.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 16
#define T 3

static double pingpong3d_kernel(double in[N + 2][N + 2][N + 2])
{
    int t, i, j, k;
    double P[N + 2][N + 2][N + 2];
    double Q[N + 2][N + 2][N + 2];
    double result = 0.0;

#pragma scop
    for (i = 1; i <= N; i++)
        for (j = 1; j <= N; j++)
            for (k = 0; k <= N + 1; k++)
                Q[i][j][k] = in[i][j][k];
    for (i = 1; i <= N; i++)
        for (k = 1; k <= N; k++) {
            Q[i][0][k] = in[i][0][k];
            Q[i][N + 1][k] = in[i][N + 1][k];
        }
    for (j = 1; j <= N; j++)
        for (k = 1; k <= N; k++) {
            Q[0][j][k] = in[0][j][k];
            Q[N + 1][j][k] = in[N + 1][j][k];
        }
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                for (k = 1; k <= N; k++)
                    P[i][j][k] = 0.25 * Q[i][j][k] + 0.125 * (Q[i - 1][j][k] + Q[i + 1][j][k] + Q[i][j - 1][k] +
                                                              Q[i][j + 1][k] + Q[i][j][k - 1] + Q[i][j][k + 1]);
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                for (k = 1; k <= N; k++)
                    Q[i][j][k] = P[i][j][k];
    }
    for (i = 1; i <= N; i++)
        for (j = 1; j <= N; j++)
            for (k = 1; k <= N; k++)
                result += (double)((i * 5 + j * 3 + k) % 7 + 1) * Q[i][j][k];
#pragma endscop
    return result;
}

int main(void)
{
    static double in[N + 2][N + 2][N + 2];
    int i, j, k;

    for (i = 0; i <= N + 1; i++)
        for (j = 0; j <= N + 1; j++)
            for (k = 0; k <= N + 1; k++) {
                if (i == 0 || i == N + 1 || j == 0 || j == N + 1 || k == 0 || k == N + 1)
                    in[i][j][k] = 50.0 + (double)((i * 7 + j * 5 + k * 3) % 11);
                else
                    in[i][j][k] = (double)((i * 29 + j * 17 + k * 13 + 7) % 31) - 15.0;
            }

    printf("pingpong3d N=%d T=%d\n", N, T);
    printf("result %.9e\n", pingpong3d_kernel(in));
    return 0;
}
