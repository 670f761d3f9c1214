/* Class 7 of issue 14: a temporary inside an `omp simd` loop (and a
 * `GCC ivdep` one). SIMD lanes run iterations at the same time: `t` and
 * `u` must keep their dimension instead of becoming scalars. */
#include <stdio.h>
#define N 256

int main(void)
{
    static float a[N], b[N], c[N];
    float t[N];
    float u[N];
    int i;
    for (i = 0; i < N; i++)
        a[i] = (float)(i % 17) * 0.25f;
#pragma omp simd
    for (i = 0; i < N; i++) {
        t[i] = a[i] * 2.0f + 1.0f;
        b[i] = t[i] * t[i];
    }
#pragma GCC ivdep
    for (i = 0; i < N; i++) {
        u[i] = b[i] - a[i];
        c[i] = u[i] * 0.5f + u[i];
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += (double)b[i] + 3.0 * (double)c[i];
    printf("%.3f\n", s);
    return 0;
}
