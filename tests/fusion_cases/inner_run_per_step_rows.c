/* Loop fusion at depth 1 (issue 48 item 2): two sibling loops inside a
 * time loop. Each step t writes its own row tmp[t][.] and the second loop
 * reads it back at the same i. Unfused, row t lives across the whole first
 * i loop (N cells at once, by cell lifetimes too); fused inside the t loop
 * (no shift: distance 0), each cell is read in the iteration that writes
 * it, so tmp needs 1 cell even with cell lifetimes.
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
        for (i = 0; i <= N - 1; i++)
            tmp[t][i] = a[i] + t;
        for (i = 0; i <= N - 1; i++)
            acc[i] += 2.0 * tmp[t][i];
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
