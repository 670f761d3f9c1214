/* triangle_temp.c — a lower-triangular temporary built fully before it
 * is read (issue 21's "triangle folding" case; seed 004's triangle
 * folding), written for the corpus.
 *
 * L[i][j] is written for 0 <= j <= i < N (a lower triangle of an N x N
 * declaration, 4096 cells at N = 64) by a first nest, and read by a
 * second one that walks the triangle by columns: every value is live at
 * once between the nests, so N(N + 1)/2 = 2080 cells is the least any
 * storage can have. A modular mapping can do no better than its
 * difference set allows (the optimal lattice has 3072 cells, with two
 * `%` per access); packed row by row, cell (i, j) is at
 * i * (i + 1) / 2 + j, no `%`.
 * External: in (input), out (output).
 * Fixes: none (an original kernel).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64

static void triangle_temp(double in[N][N], double out[N])
{
    int i, j;
    double L[N][N];

#pragma scop
    for (i = 0; i < N; i++)
        for (j = 0; j <= i; j++)
            L[i][j] = in[i][j] * 0.5 + (double)(i - j);
    for (j = 0; j < N; j++) {
        out[j] = 0.0;
        for (i = j; i < N; i++)
            out[j] = out[j] + L[i][j] * (double)(i + 1);
    }
#pragma endscop
}

int main(void)
{
    static double in[N][N], out[N];
    int i, j;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;

    triangle_temp(in, out);

    for (j = 0; j < N; j++) {
        total += out[j];
        weighted += (double)(j % 13 + 1) * out[j];
    }
    printf("triangle_temp N=%d\n", N);
    printf("out sum %.9e weighted %.9e\n", total, weighted);
    return 0;
}
