/* Loop fusion: a two-stage chain over N after an independent loop over M
 * (another shape). The run builder used to move the chain's first loop
 * before the lone M loop, as an independent item, so that later loops
 * could join the M loop; the chain was then never fused (found by the
 * stencil-chains form of polyfold-fuzz when a chain came after another
 * group). A loop that may head a run of its own now starts one.
 */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 40
#define M 7

static void kernel(const double in[N], double copy[M], double out[N])
{
    int i;
    double t[N];

#pragma scop
    for (i = 0; i <= M - 1; i++)
        copy[i] = 2.0 * in[i];
    for (i = 1; i <= N - 2; i++)
        t[i] = in[i - 1] + in[i + 1];
    for (i = 2; i <= N - 3; i++)
        out[i] = 0.5 * (t[i - 1] + t[i + 1]);
#pragma endscop
}

int main(void)
{
    static double in[N], copy[M], out[N];
    int i;
    double s = 0.0;

    for (i = 0; i < N; i++)
        in[i] = (double)((i * 7 + 3) % 11) - 5.0;
    kernel(in, copy, out);
    for (i = 0; i < N; i++)
        s += (i + 1) * out[i];
    for (i = 0; i < M; i++)
        s += (i + 2) * copy[i];
    printf("%.9e\n", s);
    return 0;
}
