/* pingpong1d_external.c — the 1-d ping-pong stencil of pingpong1d.c (seed
 * 000 Figure 1(a)) with its grids P and Q as external globals: they are
 * initialised and read by main, outside the SCoP. External data keeps its
 * layout, so polyfold must leave this file unchanged (no temporaries).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64
#define T 6

double P[N + 2];
double Q[N + 2];

static void pingpong1d_external_kernel(void)
{
    int t, i;

#pragma scop
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= N; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= N; i++)
            Q[i] = P[i];
    }
#pragma endscop
}

int main(void)
{
    int i;
    double result = 0.0, p_sum = 0.0;

    for (i = 0; i <= N + 1; i++) {
        Q[i] = (double)((i * 29 + 7) % 31) - 15.0;
        P[i] = 0.0;
    }
    Q[0] = 100.0;
    Q[N + 1] = -50.0;

    pingpong1d_external_kernel();

    for (i = 1; i <= N; i++) {
        result += (double)(i % 7 + 1) * Q[i];
        p_sum += P[i];
    }
    printf("pingpong1d_external N=%d T=%d\n", N, T);
    printf("result %.9e\n", result);
    printf("P sum %.9e\n", p_sum);
    return 0;
}
