/* strided_temp.c — a temporary accessed with a stride (issue 21's
 * "stride removal" case; seed 004's compaction before folding), written
 * for the corpus.
 *
 * t[2 * i][1] is written for 0 <= i < N and read back in reverse by a
 * second loop: every value is live at once between the loops. Declared
 * [2 * N][3] (3000 cells at N = 500), it holds N = 500 values, one per
 * iteration of the first loop, so 500 cells is the least any storage can
 * have. Successive modulo on the axes keeps 2N - 1 = 999 (only every
 * other row is used); the lattice t[(2 * i) % 501] has 501 cells and a
 * `%` on every access; with the stride divided out of the first row (and
 * the constant column dropped) no access wraps: t[N] accessed as t[i].
 * A second temporary u[3 * i + 2] is a recurrence along stride 3 that
 * reads the values of the two iterations before (the older one after the
 * new value is written) and only its last value after the loop: three
 * values live at once, u[((c0 - 2) / 3) % 3], that is u[i % 3]
 * (3N = 1500 cells -> 3).
 * External: in (input), out (output).
 * Fixes: none (an original kernel).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 500

static void strided_temp(double in[N], double out[N])
{
    int i;
    double t[N]; /* polyfold: t[2 * i][1] -> t[i] */
    double u[3]; /* polyfold: u[3 * i + 2] -> u[i % 3] */
    int u_r0, u_r1, u_r2; /* polyfold: rotating indices, advanced by their loops */

#pragma scop
    for (i = 0; i < N; i++)
        t[i] = in[i] * 0.5 + (double)(i % 3);
    u[0] = t[0];
    u_r0 = 1;
    u_r1 = 0;
    u_r2 = 2;
    for (i = 1; i < N; i++) {
        u[u_r0] = u[u_r1] * 0.25 + t[i];
        if (i >= 2)
            u[u_r0] = u[u_r0] - u[u_r2] * 0.125;
        u_r0 = u_r0 + 1 < 3 ? u_r0 + 1 : 0;
        u_r1 = u_r1 + 1 < 3 ? u_r1 + 1 : 0;
        u_r2 = u_r2 + 1 < 3 ? u_r2 + 1 : 0;
    }
    for (i = N - 1; i >= 0; i--)
        out[i] = t[i] - (double)i;
    out[0] = out[0] + u[(N - 1) % 3];
#pragma endscop
}

int main(void)
{
    static double in[N], out[N];
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N; i++)
        in[i] = (double)((i * 7) % 11) - 5.0;

    strided_temp(in, out);

    for (i = 0; i < N; i++) {
        total += out[i];
        weighted += (double)(i % 13 + 1) * out[i];
    }
    printf("strided_temp N=%d\n", N);
    printf("out sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
