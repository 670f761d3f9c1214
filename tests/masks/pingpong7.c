/* --pow2-moduli on merged buffers (tests/pow2_moduli.rs): corpus/
 * pingpong1d.c with its size written as the number 7 in the SCoP, so that
 * SMO's shared buffer for P and Q (seed 000, Table 1: N + 1 cells for the
 * 1-d ping-pong) has the number modulus 8, a power of two: with the flag
 * its `% 8` is printed as `& 7`. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define T 6

static double pingpong7_kernel(const double in[9])
{
    int t, i;
    double P[9];
    double Q[9];
    double result = 0.0;

#pragma scop
    for (i = 0; i <= 8; i++)
        Q[i] = in[i];
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= 7; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= 7; i++)
            Q[i] = P[i];
    }
    for (i = 1; i <= 7; i++)
        result += (double)(i % 7 + 1) * Q[i];
#pragma endscop
    return result;
}

int main(void)
{
    double in[9];
    int i;

    for (i = 0; i <= 8; i++)
        in[i] = (double)((i * 29 + 7) % 31) - 15.0;
    in[0] = 100.0;
    in[8] = -50.0;

    printf("result %.9e\n", pingpong7_kernel(in));
    return 0;
}
