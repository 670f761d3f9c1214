/* Two nests over the same rows and columns, the first writing a temporary
 * under `if ... else` (the else branch is a union of two pieces), the
 * second reading it one row back; a statement outside any loop before
 * them. Re-scheduled whole, the nests fuse at both levels and T keeps
 * one row and a cell. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 30
#define M 14

static double out[N + 2][M + 2];
static double in[N + 2][M + 2];
static double total;

static void kernel(void)
{
    int i, j;
    double T[N + 2][M + 2];

#pragma scop
    total = 0.5;
    for (i = 0; i <= N; i++)
        for (j = 0; j <= M; j++)
            if (i >= 1 && j >= 1)
                T[i][j] = 0.5 * in[i][j] + 0.25 * in[i - 1][j - 1];
            else
                T[i][j] = in[i][j] - 1.0;
    for (i = 1; i <= N; i++)
        for (j = 1; j <= M; j++)
            out[i][j] = T[i][j] + 0.75 * T[i - 1][j] - T[i][j - 1] + total;
#pragma endscop
}

int main(void)
{
    int i, j;
    double sum = 0.0;
    for (i = 0; i < N + 2; i++)
        for (j = 0; j < M + 2; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;
    kernel();
    for (i = 0; i < N + 2; i++)
        for (j = 0; j < M + 2; j++)
            sum += (double)((i + 2 * j) % 5 + 1) * out[i][j];
    printf("nest_union_domain %.9e\n", sum);
    return 0;
}
