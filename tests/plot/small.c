/* polyfold plot's snapshot case: a 2-D temporary whose values live for
   one row and one step (t[i][j] is last read at (i + 1, j - 1)), and a
   1-D one live for one iteration. */
#include <stdio.h>
#define N 6

static void kernel(const double in[N][N], double out[N])
{
    double t[N][N], u[N];
    int i, j;
    for (j = 0; j < N; j++)
        t[0][j] = in[0][j];
    for (i = 1; i < N; i++) {
        t[i][0] = in[i][0];
        for (j = 1; j < N - 1; j++)
            t[i][j] = 0.5 * (t[i - 1][j + 1] + t[i][j - 1]) + in[i][j];
        t[i][N - 1] = t[i - 1][N - 1];
    }
    for (i = 0; i < N; i++) {
        u[i] = t[N - 1][i] * 2.0;
        out[i] = u[i] + 1.0;
    }
}

int main(void)
{
    double in[N][N], out[N];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 5);
    kernel(in, out);
    for (i = 0; i < N; i++)
        printf("%.6f\n", out[i]);
    return 0;
}
