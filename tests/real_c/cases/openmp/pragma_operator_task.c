/* Tasks started by `_Pragma` operators: each task computes one element
 * through the scratch `t[i]`. Tasks run at the same time, in any order,
 * which the model does not describe: `t` keeps its layout (one scalar
 * would be shared by the running tasks). */
#include <stdio.h>
#define N 40

int main(void)
{
    double t[N], out[N];
    double s = 0.0;
    int i;
    _Pragma("omp parallel")
    _Pragma("omp single")
    {
        for (i = 0; i < N; i++) {
            _Pragma("omp task firstprivate(i)")
            {
                t[i] = i * 0.5 - 3.0;
                out[i] = t[i] * t[i] + 1.0;
            }
        }
    }
    for (i = 0; i < N; i++)
        s += (i + 1) * out[i];
    printf("%.6f\n", s);
    return 0;
}
