/* jacobi_interior.c — the 5-step Jacobi smoothing of
 * corpus/jacobi2d_smoothing.c written the vectorisable way: each step
 * copies its boundary in two loops and computes its interior in a nest
 * whose inner loop has no condition, so gcc vectorises the five stencils.
 *
 * The cost rule's case for a `%` varying in an innermost loop
 * (src/pipeline/variants.rs, `modulo_varying_inside`; docs/benchmarks.md):
 * re-scheduled as one skewed nest, the steps' arrays fold to
 * `a[(2 * j + 2 * N - i) % (2 * N)]` and the like, 96 % fewer cells, but
 * the `%` in the inner loops stops their vectorisation. Measured with
 * `polyfold bench --speed --min-memory --opt O2,O3 --size cache,memory`
 * (medians of 7 pairs): 3.0 (-O2) and 4.7 (-O3 -march=native) times
 * slower at N = 64, 1.8 and 1.9 times at N = 1024. By default the
 * schedule is kept (and so every array: no other fold shrinks them);
 * `--min-memory` re-schedules.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64

static double jacobi2d_smoothing_kernel(double in[N][N])
{
    int i, j;
    double a[N][N];
    double A0[N][N];
    double A1[N][N];
    double A2[N][N];
    double A3[N][N];
    double A4[N][N];
    double result = 0.0;

#pragma scop
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j)
            a[i][j] = in[i][j];
    for (i = 0; i < N; ++i) {
        A0[i][0] = a[i][0];
        A0[i][N - 1] = a[i][N - 1];
    }
    for (j = 1; j < N - 1; ++j) {
        A0[0][j] = a[0][j];
        A0[N - 1][j] = a[N - 1][j];
    }
    for (i = 1; i < N - 1; ++i)
        for (j = 1; j < N - 1; ++j)
            A0[i][j] = a[i][j] + (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
    for (i = 0; i < N; ++i) {
        A1[i][0] = A0[i][0];
        A1[i][N - 1] = A0[i][N - 1];
    }
    for (j = 1; j < N - 1; ++j) {
        A1[0][j] = A0[0][j];
        A1[N - 1][j] = A0[N - 1][j];
    }
    for (i = 1; i < N - 1; ++i)
        for (j = 1; j < N - 1; ++j)
            A1[i][j] = A0[i][j] + (A0[i - 1][j] + A0[i + 1][j] + A0[i][j - 1] + A0[i][j + 1]);
    for (i = 0; i < N; ++i) {
        A2[i][0] = A1[i][0];
        A2[i][N - 1] = A1[i][N - 1];
    }
    for (j = 1; j < N - 1; ++j) {
        A2[0][j] = A1[0][j];
        A2[N - 1][j] = A1[N - 1][j];
    }
    for (i = 1; i < N - 1; ++i)
        for (j = 1; j < N - 1; ++j)
            A2[i][j] = A1[i][j] + (A1[i - 1][j] + A1[i + 1][j] + A1[i][j - 1] + A1[i][j + 1]);
    for (i = 0; i < N; ++i) {
        A3[i][0] = A2[i][0];
        A3[i][N - 1] = A2[i][N - 1];
    }
    for (j = 1; j < N - 1; ++j) {
        A3[0][j] = A2[0][j];
        A3[N - 1][j] = A2[N - 1][j];
    }
    for (i = 1; i < N - 1; ++i)
        for (j = 1; j < N - 1; ++j)
            A3[i][j] = A2[i][j] + (A2[i - 1][j] + A2[i + 1][j] + A2[i][j - 1] + A2[i][j + 1]);
    for (i = 0; i < N; ++i) {
        A4[i][0] = A3[i][0];
        A4[i][N - 1] = A3[i][N - 1];
    }
    for (j = 1; j < N - 1; ++j) {
        A4[0][j] = A3[0][j];
        A4[N - 1][j] = A3[N - 1][j];
    }
    for (i = 1; i < N - 1; ++i)
        for (j = 1; j < N - 1; ++j)
            A4[i][j] = A3[i][j] + (A3[i - 1][j] + A3[i + 1][j] + A3[i][j - 1] + A3[i][j + 1]);
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j)
            result += (double)((i * 3 + j) % 7 + 1) * A4[i][j];
#pragma endscop
    return result;
}

int main(void)
{
    static double in[N][N];
    int i, j;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 29 + j * 17 + 7) % 31) - 15.0;

    printf("jacobi2d_smoothing N=%d steps=5\n", N);
    printf("result %.9e\n", jacobi2d_smoothing_kernel(in));
    return 0;
}
