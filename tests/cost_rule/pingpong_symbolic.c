/* The cost rule without parameter values: P[n + 2] folds to P[i % n] for
 * every n, which has the same degree in n and saves 2 of 18 cells at the
 * probe value n = 16: kept by default, folded with --min-memory. */
#include <stdio.h>

static double kernel(int n, int steps, const double in[n + 2])
{
    int t, i;
    double P[n + 2];
    double Q[n + 2];
    double result = 0.0;

#pragma scop
    for (i = 0; i <= n + 1; i++)
        Q[i] = in[i];
    for (t = 1; t <= steps; t++) {
        for (i = 1; i <= n; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= n; i++)
            Q[i] = P[i];
    }
    for (i = 1; i <= n; i++)
        result += (double)(i % 7 + 1) * Q[i];
#pragma endscop
    return result;
}

int main(void)
{
    double in[42];
    for (int i = 0; i < 42; i++)
        in[i] = (double)((i * 29 + 7) % 31) - 15.0;
    printf("n=1 %.9e\n", kernel(1, 3, in));
    printf("n=2 %.9e\n", kernel(2, 3, in));
    printf("n=17 %.9e\n", kernel(17, 4, in));
    printf("n=40 %.9e\n", kernel(40, 5, in));
    return 0;
}
