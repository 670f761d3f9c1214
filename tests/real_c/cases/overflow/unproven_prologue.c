/* Seed 003's Example 1 on a window `base + 1 .. base + n` (at most N
 * samples). Fused, the second loop is shifted by one and the prologue
 * runs `i` from `base + 1` to `base + 1`, then steps it to `base + 2`:
 * for `base = INT_MAX - 1` and `n = 0` the original runs no iteration and
 * computes nothing past INT_MAX, the prologue would. polyfold keeps the
 * loops and says why. */
#include <limits.h>
#include <stdio.h>

#define N 8

static void example1(int base, int n, double E[N + 1])
{
    int i;
    double A[N + 1];

    for (i = base + 1; i <= base + n; i++)
        A[i - base] = E[i - base] + E[i - base - 1];
    for (i = base + 1; i <= base + n; i++)
        E[i - base] = A[i - base];
}

int main(void)
{
    double E[N + 1];
    int k;
    for (k = 0; k <= N; k++)
        E[k] = (double)((k * 13 + 3) % 17) - 8.0;
    example1(0, N, E);
    example1(INT_MAX - 1, 0, E);
    example1(INT_MIN, N, E);
    example1(INT_MAX - N - 1, N, E);
    for (k = 0; k <= N; k++)
        printf("E[%d] = %.17g\n", k, E[k]);
    return 0;
}
