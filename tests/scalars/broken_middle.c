/* broken_middle.c — three loops of `i` written as a fused run would be,
 * whose middle one runs "minus one" iterations: its lower bound N + 1 is
 * two above its upper bound M = N - 1. The last loop starts at i = N, one
 * step back: `A[i - 1]` there is A[N - 1], which the first loop wrote one
 * iteration before its last. The fold A[i % 2] holds it; a shift register
 * would have shifted it out (it would read A[N]). Rotating scalars must be
 * refused here. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 10
#define M 9

static void kernel(double E[N + 2])
{
    int i;
    double A[N + 2];

#pragma scop
    for (i = 1; i <= N; i++) {
        A[i] = E[i] * 2.0;
        if (i >= 2)
            E[i] = E[i] + A[i - 1];
    }
    for (i = N + 1; i <= M; i++) {
        A[i] = E[i];
        E[i + 1] = A[i - 1];
    }
    for (i = M + 1; i <= M + 1; i++)
        E[0] = A[i - 1];
#pragma endscop
}

int main(void)
{
    double E[N + 2];
    int i;
    double total = 0.0;

    for (i = 0; i < N + 2; i++)
        E[i] = (double)((i * 13 + 3) % 17) - 8.0;
    kernel(E);
    for (i = 0; i < N + 2; i++)
        total += (double)(i + 1) * E[i];
    printf("total %.9e\n", total);
    return 0;
}
