/* broken_middle_rows.c — tests/scalars/broken_middle.c on every row r of
 * a loop around: the three loops of `i` are the body of the loop of `r`,
 * the middle one runs "minus one" iterations (N + 1 to M = N - 1), and the
 * last starts one step back, at i = N: `A[r][i - 1]` there is A[r][N - 1],
 * which the first loop wrote one iteration before its last. The fold
 * A[i % 2] holds it; a shift register would have shifted it out. Rotating
 * scalars must be refused here too. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define R 3
#define N 10
#define M 9

static void kernel(double E[R][N + 2])
{
    int r, i;
    double A[R][N + 2];

#pragma scop
    for (r = 0; r < R; r++) {
        for (i = 1; i <= N; i++) {
            A[r][i] = E[r][i] * 2.0;
            if (i >= 2)
                E[r][i] = E[r][i] + A[r][i - 1];
        }
        for (i = N + 1; i <= M; i++) {
            A[r][i] = E[r][i];
            E[r][i + 1] = A[r][i - 1];
        }
        for (i = M + 1; i <= M + 1; i++)
            E[r][0] = A[r][i - 1];
    }
#pragma endscop
}

int main(void)
{
    double E[R][N + 2];
    int r, i;
    double total = 0.0;

    for (r = 0; r < R; r++)
        for (i = 0; i < N + 2; i++)
            E[r][i] = (double)((i * 13 + r * 7 + 3) % 17) - 8.0;
    kernel(E);
    for (r = 0; r < R; r++)
        for (i = 0; i < N + 2; i++)
            total += (double)(r * (N + 2) + i + 1) * E[r][i];
    printf("total %.9e\n", total);
    return 0;
}
