/* A scratch buffer of symbolic size holding three regions: a prefix sum
 * in t[0 .. n), a reversed copy in t[n + 1 .. 2n + 1) and differences in
 * t[2n + 3 .. 3n + 2). No access of one region touches another for any
 * n, and every value is live between the loops: split into t_0 (n
 * cells), t_1 (n) and t_2 (n - 1), 3n - 1 cells for every n, where the
 * whole buffer keeps 3n + 2 (cells 0 and 3n + 1 are live together). */
#include <stdio.h>

static void kernel(int n, double in[n], double out[n])
{
    int i;
    double t[3 * n + 3];

#pragma scop
    t[0] = in[0];
    for (i = 1; i < n; i++)
        t[i] = t[i - 1] + in[i];
    for (i = 0; i < n; i++)
        t[n + 1 + i] = in[n - 1 - i] * 0.5;
    for (i = 0; i < n - 1; i++)
        t[2 * n + 3 + i] = in[i + 1] - in[i];
    for (i = 0; i < n - 1; i++)
        out[i] = t[n - 1 - i] + t[n + 1 + i] - t[2 * n + 3 + i];
    out[n - 1] = t[0] + t[2 * n];
#pragma endscop
}

int main(void)
{
    static double in[64], out[64];
    int sizes[] = {1, 2, 3, 7, 64};
    int s, i;
    for (s = 0; s < 5; s++) {
        int n = sizes[s];
        double total = 0.0;
        for (i = 0; i < n; i++)
            in[i] = (double)((i * 5) % 9) - 4.0;
        kernel(n, in, out);
        for (i = 0; i < n; i++)
            total += out[i] * (double)(i % 7 + 1);
        printf("n=%d %.6f\n", n, total);
    }
    return 0;
}
