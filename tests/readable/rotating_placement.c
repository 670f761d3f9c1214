/* Rotating indices started before their loop and advanced at the end of
 * its body (issue 49, item 3). w[t][i] folds to w[i % 5] (a window of five
 * values per time step); its reads run in the loop of j, and their
 * residues advance with i, so i's loop carries rotating indices:
 *  - the loop of i is the brace-less body of the loop of t, which gets
 *    braces so that the starts can go on lines before the loop of i;
 *  - the loop of i runs no iteration when t >= N - 1 (T > N - 1);
 *  - the last value of i is read after the SCoP. */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

#define N 13
#define M 5
#define T 15

static int kernel(const double in[N][M], double out[T][N][M])
{
    int t, i, j;
    double w[T][N];

#pragma scop
    for (t = 0; t < T; t++)
        for (i = 0; i < N - 1 - t; i++) {
            w[t][i] = in[i][t % 2] * (t + 1) + i;
            for (j = 0; j < M; j++)
                if (i >= 4)
                    out[t][i][j] = w[t][i] + 2.0 * j * w[t][i - 1] - w[t][i - 2] + w[t][i - 4];
        }
#pragma endscop
    return i;
}

int main(void)
{
    static double in[N][M], out[T][N][M];
    int i, j, t;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;
    for (t = 0; t < T; t++)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                out[t][i][j] = 0.0;
    int last = kernel(in, out);
    double sum = 0.0;
    for (t = 0; t < T; t++)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                sum += (double)((t * 5 + i * 3 + j) % 7 + 1) * out[t][i][j];
    printf("last i = %d\nsum = %.9e\n", last, sum);
    return 0;
}
