/* previous_row.c — a running sum down the columns: row i of tmp is row
 * i - 1 plus a row of the input. tmp[i - 1][j] is read at iteration
 * (i, j) right before tmp[i][j] is written, so the rows may share their
 * cells: the first dimension is dropped and the second folded modulo 3
 * (columns 1 to 3), tmp[j % 3]. Every access is at offset 0 of j, a window
 * of one cell; but tmp[i - 1][j] reaches back one iteration of the loop
 * of i, which the scalars do not cross (a lone scalar would sum the whole
 * input). Rotating scalars must be refused here. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static void kernel(int N, const double in[N + 1][4], double out[N + 1][4])
{
    int i, j;
    double tmp[N + 1][4];

#pragma scop
    for (i = 0; i < N; i++)
        for (j = 1; j <= 3; j++) {
            if (i == 0)
                tmp[i][j] = in[i][j];
            if (i >= 1)
                tmp[i][j] = 0.5 * tmp[i - 1][j] + in[i][j];
            out[i][j] = tmp[i][j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 10;
    double (*in)[4] = malloc(sizeof(double) * (size_t)(N + 1) * 4);
    double (*out)[4] = malloc(sizeof(double) * (size_t)(N + 1) * 4);
    int i, j;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i <= N; i++)
        for (j = 0; j <= 3; j++) {
            in[i][j] = (double)((i * 37 + j * 11 + 5) % 101) - 50.0;
            out[i][j] = 0.0;
        }
    kernel(N, in, out);
    for (i = 0; i <= N; i++)
        for (j = 0; j <= 3; j++) {
            total += out[i][j];
            weighted += (double)((i * 4 + j) % 13 + 1) * out[i][j];
        }
    printf("N=%d out sum %.9e weighted %.9e\n", N, total, weighted);
    free(in);
    free(out);
    return 0;
}
