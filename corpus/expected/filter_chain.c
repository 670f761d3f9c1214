/* filter_chain.c — a three-stage 1-d filter chain written as separate
 * loops (issue 20; the shape of seed 003's Example 1, one stage longer).
 *
 * Stage 1 smooths the input into t1, stage 2 smooths t1 into t2, stage 3
 * takes a difference of t2 into out. Each stage reads its predecessor at
 * i - 1, i and i + 1, so unfused every intermediate keeps all its N
 * values alive until the next loop; shifted by 1 and 2 and fused, a value
 * of t1 is read for the last time two iterations after it is written, and
 * so is a value of t2: 3 cells each (seed 003 §3, coalesced distances).
 *
 * Temporaries: t1[N + 2], t2[N + 2]. External: in (input), out (output).
 * Target: t1 and t2 at 3 cells each after shifting and fusion.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 1000

static void filter_chain(const double in[N + 2], double out[N + 2])
{
    int i;
    /* polyfold: t1[i] -> scalars t1_s0 = t1[i - 2], t1_s1 = t1[i - 1], t1_s2 = t1[i] in the loops of i */
    double t1_s0 = 0, t1_s1 = 0, t1_s2 = 0;
    /* polyfold: t2[i] -> scalars t2_s0 = t2[i - 3], t2_s1 = t2[i - 2], t2_s2 = t2[i - 1] in the loops of i */
    double t2_s0 = 0, t2_s1 = 0, t2_s2 = 0;

#pragma scop
    for (i = 1; i <= 4; i++) {
        if (i <= N) {
            t1_s2 = (in[i - 1] + 2.0 * in[i] + in[i + 1]) * 0.25;
            if (i >= 3)
                t2_s2 = (t1_s0 + 2.0 * t1_s1 + t1_s2) * 0.25;
        }
        t1_s0 = t1_s1;
        t1_s1 = t1_s2;
        t2_s0 = t2_s1;
        t2_s1 = t2_s2;
    }
    for (i = 5; i <= N; i++) {
        t1_s2 = (in[i - 1] + 2.0 * in[i] + in[i + 1]) * 0.25;
        t2_s2 = (t1_s0 + 2.0 * t1_s1 + t1_s2) * 0.25;
        out[i - 2] = t2_s2 - t2_s0;
        t1_s0 = t1_s1;
        t1_s1 = t1_s2;
        t2_s0 = t2_s1;
        t2_s1 = t2_s2;
    }
#pragma endscop
}

int main(void)
{
    static double in[N + 2], out[N + 2];
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N + 2; i++)
        in[i] = (double)((i * 37 + 11) % 101) - 50.0;
    for (i = 0; i < N + 2; i++)
        out[i] = 0.0;

    filter_chain(in, out);

    for (i = 0; i < N + 2; i++) {
        total += out[i];
        weighted += (double)(i % 13 + 1) * out[i];
    }
    printf("filter_chain N=%d\n", N);
    printf("out sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
