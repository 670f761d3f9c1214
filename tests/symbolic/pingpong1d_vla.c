/* pingpong1d (corpus/pingpong1d.c) with its sizes as kernel parameters
 * (VLAs) and no #define: the symbolic-size twin. Run as `./a.out N T`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static double pingpong1d_kernel(int n, int tsteps, const double in[n + 2])
{
    int t, i;
    double P[n + 2];
    double Q[n + 2];
    double result = 0.0;

#pragma scop
    for (i = 0; i <= n + 1; i++)
        Q[i] = in[i];
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i <= n; i++)
            P[i] = 0.25 * Q[i - 1] + 0.5 * Q[i] + 0.25 * Q[i + 1];
        for (i = 1; i <= n; i++)
            Q[i] = P[i];
    }
    for (i = 1; i <= n; i++)
        result += (double)(i % 7 + 1) * Q[i];
#pragma endscop
    return result;
}

static void run(int n, int tsteps)
{
    double in[n + 2];

    for (int i = 0; i <= n + 1; i++)
        in[i] = (double)((i * 29 + 7) % 31) - 15.0;
    in[0] = 100.0;
    in[n + 1] = -50.0;
    printf("pingpong1d n=%d t=%d result %.9e\n", n, tsteps, pingpong1d_kernel(n, tsteps, in));
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 64, argc > 2 ? atoi(argv[2]) : 6);
    return 0;
}
