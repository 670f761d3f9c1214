/* A size macro redefined in the middle of the file: `first` is written
 * for N = 10 and `second` for N = 4. Both scratch arrays are linearised
 * (`t[N * i + j]`), so their folded storage holds for the known N only
 * and is pinned by a `_Static_assert`: each pin must name the N in force
 * in its function, or the output does not compile. */
#include <stdio.h>

#define N 10

static double first(const double in[N])
{
    double t[N * N];
    double s = 0.0;
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++)
            t[N * i + j] = in[j] * (i + 1);
        for (j = 0; j < N; j++)
            s += t[N * i + j] * t[N * i + N - 1 - j];
    }
    return s;
}

#undef N
#define N 4

static double second(const double in[N])
{
    double u[N * N];
    double s = 0.0;
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++)
            u[N * i + j] = in[j] - i;
        for (j = 1; j < N; j++)
            s += u[N * i + j] * u[N * i + j - 1];
    }
    return s;
}

int main(void)
{
    double a[10];
    int i;
    for (i = 0; i < 10; i++)
        a[i] = 0.5 * i + 1.0;
    printf("%.6f\n", first(a));
    printf("%.6f\n", second(a));
    return 0;
}
