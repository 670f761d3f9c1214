/* --pow2-moduli (tests/pow2_moduli.rs): a recurrence whose temporary t
 * holds three live values at each write (t[i - 1], t[i - 2] and t[i - 3],
 * read before t[i] is written), so it folds to t[i % 3] (pinned to the
 * known N), its `%` in the innermost loop. With the flag the modulus is
 * rounded up to 4 (one cell more, below an eighth of N = 200) and
 * printed as `& 3`. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
#define N 200
#endif
#define R 5

static double ring_kernel(const double in[N])
{
    int i;
    double t[N];
    double out[1];

#pragma scop
    t[0] = in[0];
    t[1] = in[1] - t[0];
    t[2] = in[2] + 0.5 * t[1];
    for (i = 3; i < N; i++)
        t[i] = 0.5 * t[i - 1] - 0.25 * t[i - 3] + in[i];
    out[0] = t[N - 1] + t[N - 2] * 0.125;
#pragma endscop
    return out[0];
}

int main(void)
{
    static double in[R][N];
    int r, i;
    for (r = 0; r < R; r++) {
        for (i = 0; i < N; i++)
            in[r][i] = (double)((r * 31 + i * 17) % 23) / 8.0 - 1.0;
        printf("out[%d] = %.9e\n", r, ring_kernel(in[r]));
    }
    return 0;
}
