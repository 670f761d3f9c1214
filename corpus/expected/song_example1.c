/* song_example1.c — Example 1 of seed 003 (Song, Wang, Li, "A
 * Polynomial-Time Algorithm for Memory Space Reduction"), Figure 1(a).
 *
 * Fortran as printed:  L1: DO I = 1, N: A(I) = E(I) + E(I-1)
 *                      L2: DO I = 1, N: E(I) = A(I)
 * Here in C with the same (1-based) subscripts: A[N+1] (A[1..N] used),
 * E[N+1] (E[0..N]). A is the only local array region ("A is assumed dead
 * after loop L2"): a local temporary. E is external (input and output).
 * Targets: A needs N cells under the original schedule (all of A is
 * written by L1 before L2 reads any of it; max-live N); after right-shifting
 * L2 by one iteration and fusing (Fig. 1(b)-(d)) A becomes 2 scalars
 * (roadmap: schedule changes).
 * Fixes: none needed.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 100

static void song_example1(double E[N + 1])
{
    int i;
    double A_s0 = 0, A_s1 = 0; /* polyfold: A[i] -> scalars A_s0 = A[i - 1], A_s1 = A[i] in the loops of i */

#pragma scop
    if (N >= 1)
        A_s1 = E[1] + E[0];
    A_s0 = A_s1;
    for (i = 2; i <= N; i++) {
        A_s1 = E[i] + E[i - 1];
        E[i - 1] = A_s0;
        A_s0 = A_s1;
    }
    if (N >= 1)
        E[N] = A_s0;
#pragma endscop
}

int main(void)
{
    double E[N + 1];
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i <= N; i++)
        E[i] = (double)((i * 13 + 3) % 17) - 8.0;

    song_example1(E);

    for (i = 0; i <= N; i++) {
        total += E[i];
        weighted += (double)(i % 7 + 1) * E[i];
    }
    printf("song_example1 N=%d\n", N);
    printf("E sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
