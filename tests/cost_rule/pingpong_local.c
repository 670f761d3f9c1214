/* The cost rule (issue 18): P[N + 2] folds to P[i % N], which saves 2 of
 * 42 cells and puts a `%` on every access of the inner loops; by default
 * polyfold keeps P (the report says why), with --min-memory it folds. Q
 * needs all its cells. With --min-memory and the inter-array path, P and Q
 * are merged (by default not: the merged accesses select on the iterators). */
#include <stdio.h>

#define N 40
#define T 5

static double kernel(const double in[N + 2])
{
    int t, i;
    double P[N + 2];
    double Q[N + 2];
    double result = 0.0;

#pragma scop
    for (i = 0; i <= N + 1; i++)
        Q[i] = in[i];
    for (t = 1; t <= T; t++) {
        for (i = 1; i <= N; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= N; i++)
            Q[i] = P[i];
    }
    for (i = 1; i <= N; i++)
        result += (double)(i % 7 + 1) * Q[i];
#pragma endscop
    return result;
}

int main(void)
{
    double in[N + 2];
    for (int i = 0; i <= N + 1; i++)
        in[i] = (double)((i * 29 + 7) % 31) - 15.0;
    printf("%.9e\n", kernel(in));
    return 0;
}
