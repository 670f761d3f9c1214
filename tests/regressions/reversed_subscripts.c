/* reversed_subscripts.c — generated program (seed 11) kept as a regression seed: a 2-d temporary written with a reversed, transposed subscript T0[-j + 8][i + 1] and read one iteration later (guarded) and by a later nest. It passes the differential check; it is here so that the regression runner always has a case. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N0 6
#define N1 10
#define N2 9
#define IN_SIZE 160
#define OUT_SIZE 40

static void kernel(double in[IN_SIZE], double out[OUT_SIZE])
{
    int i, j;
    double T0[N0 + 2][N1 - 2];

#pragma scop
    for (i = 0; i <= N0 - 1; i++) {
        for (j = 1; j <= N2 - 2; j++) {
            T0[-j + 8][i + 1] = 1.5 * in[i + j + 1] + -2.0;
            if (i - 1 >= 0 && j - 2 >= 0) {
                out[1] += 0.5 * T0[-j + 9][i];
            }
        }
    }
    for (i = 0; i <= N0 - 1; i++) {
        for (j = 1; j <= N2 - 2; j++) {
            out[j] += 1.0 * T0[-j + 8][i + 1];
        }
    }
#pragma endscop
}

int main(void)
{
    static double in[IN_SIZE];
    static double out[OUT_SIZE];
    int i;

    for (i = 0; i < IN_SIZE; i++)
        in[i] = (double)((i * 37 + 11) % 23) - 11.0;
    for (i = 0; i < OUT_SIZE; i++)
        out[i] = 0.0;
    kernel(in, out);
    for (i = 0; i < OUT_SIZE; i++)
        printf("out[%d] %.17g\n", i, out[i]);
    return 0;
}
