/* A diagonal copy t[i][j] = t[i - 1][j - 1] in the innermost loop: the
   mapping t[i][j] -> t[(j - i) % N] sends both sides to one cell, so the
   copy is deleted, with the two `%` it would have printed: the report
   must not count them (tests/readable_output.rs). */
#include <stdio.h>
#define N 8

static void kernel(const double in[N], double out[N])
{
    double t[N][N];
    int i, j;
    for (j = 0; j < N; j++)
        t[0][j] = in[j];
    for (i = 1; i < N; i++) {
        t[i][0] = in[i] * 0.5;
        for (j = 1; j < N; j++)
            t[i][j] = t[i - 1][j - 1];
        out[i] = t[i][N - 1];
    }
    out[0] = t[N - 1][N - 1];
}

int main(void)
{
    double in[N], out[N];
    int i;
    for (i = 0; i < N; i++)
        in[i] = (double)((i * 7) % 5) - 2.0;
    kernel(in, out);
    for (i = 0; i < N; i++)
        printf("%.6f\n", out[i]);
    return 0;
}
