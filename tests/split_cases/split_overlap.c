/* Two regions of one buffer at offsets 0 and M, each N long: disjoint at
 * the known sizes (M = 40 >= N = 30), but they overlap wherever M < N,
 * so no split is proven for every size, and the buffer stays one array. */
#include <stdio.h>

#define N 30
#define M 40

static void kernel(double in[N], double out[N])
{
    int i;
    double t[M + N];

#pragma scop
    for (i = 0; i < N; i++)
        t[i] = in[i] * 2.0;
    for (i = 0; i < N; i++)
        t[M + i] = in[i] + 1.0;
    for (i = 0; i < N; i++)
        out[i] = t[N - 1 - i] + t[M + i];
#pragma endscop
}

int main(void)
{
    static double in[N], out[N];
    int i;
    double total = 0.0;
    for (i = 0; i < N; i++)
        in[i] = (double)(i % 7);
    kernel(in, out);
    for (i = 0; i < N; i++)
        total += out[i] * (double)(i + 1);
    printf("%.1f\n", total);
    return 0;
}
