/* pingpong2d.c — time-iterated 2-d stencil with a ping-pong buffer, seed 000
 * (Bhaskaracharya, Bondhugula, Cohen, "SMO", POPL 2016) Table 1
 * ("2-d stencil", "a code similar to Fig. 1(a) that uses 2-d arrays").
 *
 * Each time step computes P[1..N][1..N] from a 5-point stencil of Q and
 * copies P back into Q's interior. The boundary ring of Q (row 0, row N+1,
 * column 0, column N+1) is read at every step and never rewritten, so it
 * needs a home of its own. The 5-point shape is the one whose last reads
 * match SMO's published conflict specification
 * (heat2d-double-buffer.smo.input: Q[i][j] last read by P[i+1][j]).
 * As DESIGN.md asks, Q is initialised (from the external input `in`) and
 * consumed (weighted sum into the local scalar `result`) inside the SCoP,
 * so P and Q are both temporaries.
 *
 * The initialisation writes exactly the cells that are read (the corners of
 * Q are never read, so they are not written either).
 * Temporaries: P[N+2][N+2] (interior N x N used), Q[N+2][N+2]: 2N^2
 * time-iterated cells plus the 4N boundary cells.
 * Target (Table 1): 2N^2 -> N^2 + 2N for the time-iterated values
 * (A[(i - 3t + 1) % (N + 2)][j % N] and A[(i - 3t) % (N + 2)][j % N]), copy
 * loop deleted; max-live N^2 + N; plus the boundary cells.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64
#define T 4

static double pingpong2d_kernel(double in[N + 2][N + 2])
{
    int t, i, j;
    double P[N + 2][N + 2];
    double Q[N + 2][N + 2];
    double result = 0.0;

#pragma scop
    for (i = 1; i <= N; i++)
        for (j = 0; j <= N + 1; j++)
            Q[i][j] = in[i][j];
    for (j = 1; j <= N; j++) {
        Q[0][j] = in[0][j];
        Q[N + 1][j] = in[N + 1][j];
    }
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                P[i][j] = 0.5 * Q[i][j] + 0.125 * (Q[i - 1][j] + Q[i + 1][j] + Q[i][j - 1] + Q[i][j + 1]);
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++)
                Q[i][j] = P[i][j];
    }
    for (i = 1; i <= N; i++)
        for (j = 1; j <= N; j++)
            result += (double)((i * 3 + j) % 7 + 1) * Q[i][j];
#pragma endscop
    return result;
}

int main(void)
{
    static double in[N + 2][N + 2];
    int i, j;

    for (i = 0; i <= N + 1; i++)
        for (j = 0; j <= N + 1; j++)
            in[i][j] = (double)((i * 29 + j * 17 + 7) % 31) - 15.0;
    for (i = 0; i <= N + 1; i++) {
        in[i][0] = 100.0 + i;
        in[i][N + 1] = -50.0 - i;
        in[0][i] = 25.0 + 2 * i;
        in[N + 1][i] = -75.0 + 3 * i;
    }

    printf("pingpong2d N=%d T=%d\n", N, T);
    printf("result %.9e\n", pingpong2d_kernel(in));
    return 0;
}
