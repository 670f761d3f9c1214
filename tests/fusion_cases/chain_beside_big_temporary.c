/* Loop fusion: a two-stage chain over N beside a temporary of N * N cells
 * whose values are all live at once (written row by row, read back
 * column by column), so it keeps its layout. Fusing the chain takes its
 * intermediate from N cells to 3; fusion used to be judged on the whole
 * SCoP's cells (4096 + 64 -> 4096 + 3 at N = 64, far from a quarter),
 * so the chain was never fused. It is now judged on the arrays whose
 * cells change.
 */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 64

static void kernel(const double in[N], double out[N], double sums[N])
{
    int i, j;
    double big[N][N];
    double t[N];

#pragma scop
    for (i = 0; i <= N - 1; i++)
        for (j = 0; j <= N - 1; j++)
            big[i][j] = in[i] * in[j];
    for (j = 0; j <= N - 1; j++)
        for (i = 0; i <= N - 1; i++)
            sums[j] = sums[j] + big[N - 1 - i][j];
    for (i = 1; i <= N - 2; i++)
        t[i] = in[i - 1] + in[i + 1];
    for (i = 2; i <= N - 3; i++)
        out[i] = 0.5 * (t[i - 1] + t[i + 1]);
#pragma endscop
}

int main(void)
{
    static double in[N], out[N], sums[N];
    int i;
    double s = 0.0;

    for (i = 0; i < N; i++)
        in[i] = (double)((i * 7 + 3) % 11) - 5.0;
    kernel(in, out, sums);
    for (i = 0; i < N; i++)
        s += (i + 1) * out[i] + (i + 3) * sums[i];
    printf("%.9e\n", s);
    return 0;
}
