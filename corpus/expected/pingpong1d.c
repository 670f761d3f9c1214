/* pingpong1d.c — time-iterated 1-d stencil with a ping-pong buffer, seed 000
 * (Bhaskaracharya, Bondhugula, Cohen, "SMO", POPL 2016) Figure 1(a) and
 * Table 1 ("1-d stencil").
 *
 * Each time step computes P[1..N] from Q[0..N+1] and copies P back into
 * Q[1..N]. The boundary values Q[0] and Q[N+1] are read at every step and
 * never rewritten: they need a home of their own (seed 000 Fig. 1(b)/(c)
 * gives them none, which is wrong as printed).
 * As DESIGN.md asks, the input grid Q is initialised and the output grid
 * consumed INSIDE the SCoP (first loop: Q from the external input `in`;
 * last loop: a weighted sum into the local scalar `result`, which is
 * returned and printed), so that P and Q are both temporaries: every gain
 * of SMO comes from sharing storage between them.
 * Fig. 1 runs the time loop to N; here it runs to the separate parameter T.
 * f is a weighted average 0.25 Q[i-1] + 0.5 Q[i] + 0.25 Q[i+1].
 *
 * Temporaries: P[N+2] (P[1..N] used), Q[N+2]: 2N time-iterated cells plus
 * the two boundary cells. Target (Table 1): 2N -> N+1 for the time-iterated
 * values, A[(i - t + N) % (N + 1)] for both P and Q, the copy loop deleted
 * (Fig. 1(c)); max-live N+1; plus 2 cells for Q[0], Q[N+1].
 * Fixes: in the extracted Fig. 1(a) the copy loop sits inside the compute
 * loop and the sum reads Q[N][i] (a 2-d access of the 1-d Q); both are
 * extraction/typesetting errors (the text, Fig. 2(a) and SMO's published
 * conflict specification have the two loops in sequence and sum the last
 * step's Q[i]). Written as in Fig. 2(a) here.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64
#define T 6

static double pingpong1d_kernel(const double in[N + 2])
{
    int t, i;
    double P[N + 2];
    double Q[N + 2];
    double result = 0.0;

#pragma scop
    for (i = 0; i <= N + 1; i++)
        Q[i] = in[i];
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= N; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= N; i++)
            Q[i] = P[i];
    }
    for (i = 1; i <= N; i++)
        result += (double)(i % 7 + 1) * Q[i];
#pragma endscop
    return result;
}

int main(void)
{
    double in[N + 2];
    int i;

    for (i = 0; i <= N + 1; i++)
        in[i] = (double)((i * 29 + 7) % 31) - 15.0;
    in[0] = 100.0;
    in[N + 1] = -50.0;

    printf("pingpong1d N=%d T=%d\n", N, T);
    printf("result %.9e\n", pingpong1d_kernel(in));
    return 0;
}
