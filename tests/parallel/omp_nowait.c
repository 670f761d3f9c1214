/* Class 7 of issue 14: `nowait` lets a thread start the second loop while
 * others still run the first one. Sequentially `t[N + i]` (second loop)
 * could reuse the locations of `t[i]` (first loop): `t[(c) % N]`. With
 * `nowait` and a dynamic schedule that reuse is a data race, so `t` keeps
 * its layout. */
#include <stdio.h>
#define N 200

int main(void)
{
    static double in1[N], in2[N], out1[N], out2[N];
    double t[2 * N];
    int i;
    for (i = 0; i < N; i++) {
        in1[i] = (double)(i % 13) * 0.5;
        in2[i] = (double)(i % 7) - 3.0;
    }
#pragma omp parallel num_threads(4)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (i = 0; i < N; i++) {
            t[i] = in1[i] * 3.0 + 1.0;
            out1[i] = t[i] * t[i];
        }
#pragma omp for schedule(dynamic, 1)
        for (i = 0; i < N; i++) {
            t[N + i] = in2[i] * 2.0 - 1.0;
            out2[i] = t[N + i] * 0.5 + t[N + i];
        }
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += out1[i] + 2.0 * out2[i];
    printf("%.3f\n", s);
    return 0;
}
