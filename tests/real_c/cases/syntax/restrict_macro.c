/* A portable `restrict`: `RESTRICT` is `__restrict` for GCC and Clang,
 * nothing elsewhere. It qualifies array parameters (C99 `[restrict N]`)
 * and a pointer parameter. The file must parse, and the scratch `t` of
 * `scale_shift` folds once its two loops are fused. */
#include <stdio.h>

#if defined(__GNUC__)
#define RESTRICT __restrict
#else
#define RESTRICT
#endif
#define N 256

static void scale_shift(const double in[RESTRICT N], double out[RESTRICT N],
                        double *RESTRICT last)
{
    double t[N];
    int i;
    for (i = 0; i < N; i++)
        t[i] = in[i] * 0.5 - 1.0;
    for (i = 0; i < N; i++)
        out[i] = t[i] * t[i] + in[i];
    *last = out[N - 1];
}

static double dot(const double *RESTRICT a, const double *RESTRICT b, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

int main(void)
{
    double x[N], y[N], last = 0.0;
    int i;
    for (i = 0; i < N; i++)
        x[i] = (double)((i * 29) % 17) * 0.125;
    scale_shift(x, y, &last);
    printf("%.6f %.6f\n", dot(x, y, N), last);
    return 0;
}
