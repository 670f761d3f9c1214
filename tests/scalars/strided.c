/* strided.c — a temporary read and written at `2 * i`: folded to
 * `A[(2 * i) % 4]`-like storage, never to rotating scalars (a subscript
 * with coefficient 2 moves two cells per iteration). */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 50

static void kernel(double E[N + 1])
{
    int i;
    double A[2 * N + 2];

#pragma scop
    for (i = 1; i <= N; i++) {
        A[2 * i] = E[i] + 1.0;
        if (i >= 2)
            E[i - 1] = A[2 * i] + A[2 * i - 2];
    }
#pragma endscop
}

int main(void)
{
    double E[N + 1];
    int i;
    double total = 0.0;

    for (i = 0; i <= N; i++)
        E[i] = (double)((i * 13 + 3) % 17) - 8.0;
    kernel(E);
    for (i = 0; i <= N; i++)
        total += (double)(i + 1) * E[i];
    printf("total %.9e\n", total);
    return 0;
}
