/* A static scratch array declared while N is 8, used by a function
 * written after N became 6. Its extent reads N = 8 where it is declared,
 * the loops N = 6: a pin printed at the declaration (`N == 6`) would fail
 * there, and a model with one N would be wrong. The SCoP is left out, and
 * the file runs as before. */
#include <stdio.h>

#define N 8
#define M 5

static double g[N * M];

#undef N
#define N 6

static double rows(const double in[M])
{
    double s = 0.0;
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < M; j++)
            g[M * i + j] = in[j] + i;
        for (j = 0; j < M; j++)
            s += g[M * i + j] * g[M * i + M - 1 - j];
    }
    return s;
}

int main(void)
{
    double a[M] = {1.0, 2.0, 3.5, -1.0, 0.25};
    printf("%.6f\n", rows(a));
    return 0;
}
