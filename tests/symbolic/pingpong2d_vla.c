/* pingpong2d (corpus/pingpong2d.c) with its sizes as kernel parameters
 * (VLAs) and no #define: the symbolic-size twin. Run as `./a.out N T`. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static double pingpong2d_kernel(int n, int tsteps, double in[n + 2][n + 2])
{
    int t, i, j;
    double P[n + 2][n + 2];
    double Q[n + 2][n + 2];
    double result = 0.0;

#pragma scop
    for (i = 1; i <= n; i++)
        for (j = 0; j <= n + 1; j++)
            Q[i][j] = in[i][j];
    for (j = 1; j <= n; j++) {
        Q[0][j] = in[0][j];
        Q[n + 1][j] = in[n + 1][j];
    }
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i <= n; i++)
            for (j = 1; j <= n; j++)
                P[i][j] = 0.5 * Q[i][j] + 0.125 * (Q[i - 1][j] + Q[i + 1][j] + Q[i][j - 1] + Q[i][j + 1]);
        for (i = 1; i <= n; i++)
            for (j = 1; j <= n; j++)
                Q[i][j] = P[i][j];
    }
    for (i = 1; i <= n; i++)
        for (j = 1; j <= n; j++)
            result += (double)((i * 3 + j) % 7 + 1) * Q[i][j];
#pragma endscop
    return result;
}

static void run(int n, int tsteps)
{
    double in[n + 2][n + 2];

    for (int i = 0; i <= n + 1; i++)
        for (int j = 0; j <= n + 1; j++)
            in[i][j] = (double)((i * 29 + j * 17 + 7) % 31) - 15.0;
    for (int i = 0; i <= n + 1; i++) {
        in[i][0] = 100.0 + i;
        in[i][n + 1] = -50.0 - i;
        in[0][i] = 25.0 + 2 * i;
        in[n + 1][i] = -75.0 + 3 * i;
    }
    printf("pingpong2d n=%d t=%d result %.9e\n", n, tsteps, pingpong2d_kernel(n, tsteps, in));
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atoi(argv[1]) : 64, argc > 2 ? atoi(argv[2]) : 4);
    return 0;
}
