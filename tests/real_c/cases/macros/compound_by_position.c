#include <stdio.h>
#define T 12
#define N 40+10

static double first(void)
{
    double u[N + 2];
    double d[T][N + 2];
    double s = 0.0;
    int t, i;
    for (i = 0; i < N + 2; i++)
        u[i] = (double)((i * 7) % 11);
    for (t = 0; t < T; t++) {
#pragma GCC ivdep
        for (i = 1; i <= N; i++)
            d[t][i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
        for (i = 1; i <= N; i++)
            u[i] = u[i] + 0.2 * d[t][i];
    }
    for (i = 0; i < N + 2; i++)
        s += (i + 1) * u[i];
    return s;
}

#undef N
#define N 20

static double second(void)
{
    double v[N];
    double s = 0.0;
    int i;
    for (i = 0; i < N; i++)
        v[i] = i * 0.5;
    for (i = 1; i < N; i++)
        s += v[i] * v[i - 1];
    return s;
}

int main(void)
{
    printf("%.9f %.9f\n", first(), second());
    return 0;
}
