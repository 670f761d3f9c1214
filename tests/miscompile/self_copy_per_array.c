/* A per-array fold (t[i][j] -> t[j % N]) makes the copies t[i][j] =
   t[i - 1][j] of the last columns `x = x`: they are deleted with the
   brace-less `if` and `for` around them (the trace of `verify` runs the
   program without them). */
#include <stdio.h>
#define N 8

static void kernel(const double in[N][N], double out[N])
{
    double t[N][N];
    int i, j;
    for (j = 0; j < N; j++)
        t[0][j] = in[0][j];
    for (i = 1; i < N; i++) {
        t[i][0] = in[i][0];
        for (j = 1; j < N - 2; j++)
            t[i][j] = 0.5 * (t[i - 1][j + 1] + t[i][j - 1]) + in[i][j];
        if (i > 0)
            t[i][N - 2] = t[i - 1][N - 2];
        for (j = N - 1; j < N; j++)
            t[i][j] = t[i - 1][j];
        out[i] = t[i][N - 1];
    }
    for (i = 0; i < N; i++)
        out[i] = out[i] + t[N - 1][i];
}

int main(void)
{
    double in[N][N], out[N];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 5) - 2.0;
    kernel(in, out);
    for (i = 0; i < N; i++)
        printf("%.6f\n", out[i]);
    return 0;
}
