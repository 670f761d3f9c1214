/* split_temp.c — one scratch buffer holding two signals at fixed offsets
 * (issue 21's "split into 2"; seed 004's grouping of references with
 * disjoint footprints), written for the corpus.
 *
 * scratch[0 .. N) holds a smoothed signal, read back in reverse at the
 * end; scratch[2N .. 3N) holds the differences of the input, read in
 * order at the end: no access of the one region ever touches the other,
 * and every value of both is live between the loops (2N - 1 = 999
 * values). As one array, no modular mapping does better than successive
 * modulo's 3N - 1 = 1499 cells: the mappings of a one-dimensional array
 * are residues modulo some m, and every m below 3N - 1 has a multiple
 * among the distances of two live cells (1 .. N - 1 within a region,
 * N + 1 .. 3N - 2 between them). Split into one array per reference
 * group, each is folded alone: scratch_0 N = 500 and scratch_1 N - 1 =
 * 499 (its offset 2N removed), together the max-live bound 999, with no
 * `%`.
 * External: in (input), out (output).
 * Fixes: none (an original kernel).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 500

static void split_temp(double in[N], double out[N])
{
    int i;
    double scratch_0[N]; /* polyfold: scratch[i] -> scratch_0[i] */
    double scratch_1[N - 1 > 1 ? N - 1 : 1]; /* polyfold: scratch[2 * N + i] -> scratch_1[i] */

#pragma scop
    scratch_0[0] = in[0];
    for (i = 1; i < N; i++)
        scratch_0[i] = 0.5 * scratch_0[i - 1] + 0.5 * in[i];
    for (i = 0; i < N - 1; i++)
        scratch_1[i] = in[i + 1] - in[i];
    out[0] = scratch_0[N - 1];
    for (i = 1; i < N; i++)
        out[i] = scratch_0[N - 1 - i] + 0.25 * scratch_1[i - 1];
#pragma endscop
}

int main(void)
{
    static double in[N], out[N];
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N; i++)
        in[i] = (double)((i * 7) % 11) - 5.0;

    split_temp(in, out);

    for (i = 0; i < N; i++) {
        total += out[i];
        weighted += (double)(i % 13 + 1) * out[i];
    }
    printf("split_temp N=%d\n", N);
    printf("out sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
