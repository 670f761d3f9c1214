/* Loop shifting and fusion at depth 1 (issue 48 item 2): a 3-point
 * stencil chain inside a time loop, each step on its own row tmp[t][.].
 * The second loop reads tmp[t][i + 1], written one iteration later: it is
 * shifted by 1, and then tmp[t][j] lives from fused iteration j to j + 2:
 * 3 cells (unfused: a row of N - 2 = 28 cells).
 */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 30
#define T 4

static void kernel(const double a[N], double acc[N])
{
    int t, i;
    double tmp[T][N];

#pragma scop
    for (t = 0; t <= T - 1; t++) {
        for (i = 1; i <= N - 2; i++)
            tmp[t][i] = a[i - 1] + a[i + 1] + t;
        for (i = 2; i <= N - 3; i++)
            acc[i] += 0.5 * (tmp[t][i - 1] + tmp[t][i + 1]);
    }
#pragma endscop
}

int main(void)
{
    static double a[N], acc[N];
    int i;
    double s = 0.0;

    for (i = 0; i < N; i++) {
        a[i] = (double)((i * 5 + 1) % 9) - 4.0;
        acc[i] = 0.0;
    }
    kernel(a, acc);
    for (i = 0; i < N; i++)
        s += (i + 1) * acc[i];
    printf("%.9e\n", s);
    return 0;
}
