/* `_Pragma` in statement position, written directly and through a macro
 * (C99 6.10.9), before two parallel loops with a temporary each. Both
 * loops are parallel: `t` and `u` keep one cell per iteration. */
#include <stdio.h>
#define N 64
#define PARALLEL_FOR _Pragma("omp parallel for")

int main(void)
{
    float x[N], y[N], z[N];
    float t[N], u[N];
    int i;
    for (i = 0; i < N; i++)
        x[i] = (float)(i % 9) * 0.25f;
    _Pragma("omp parallel for")
    for (i = 0; i < N; i++) {
        t[i] = x[i] * x[i] + 1.0f;
        y[i] = t[i] * 0.5f - x[i];
    }
    PARALLEL_FOR
    for (i = 0; i < N; i++) {
        u[i] = y[i] + x[i];
        z[i] = u[i] * u[i];
    }
    float s = 0.0f;
    for (i = 0; i < N; i++)
        s += (float)(i + 1) * z[i];
    printf("%.6f\n", s);
    return 0;
}
