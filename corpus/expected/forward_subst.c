/* forward_subst.c — forward substitution L y = b, seed 002 (Morvan,
 * "Memory Allocation and Array Contraction using the Polyhedral Model in
 * GeCoS", 2014) Example 2, Figure 2.
 *
 * As printed (S0: y[i] = b[i]; S1 (i, j), j < i: y[i] = y[i] - L[i][j] * y[j];
 * S2: y[i] = y[i] / L[i][i]), with N an object-like macro and double
 * elements (the paper's int division would truncate). Several statements
 * write the same cell y[i] (S1 many times), which is what the example
 * illustrates.
 * Change: in the paper y is an output parameter, which would leave the
 * kernel without a temporary. Here y is a local array and the SCoP ends
 * with a copy of y into the external output x, so y is a temporary whose
 * values all stay live until that copy: no contraction is possible (every
 * y[j] is read by every later row and by the copy; max-live N), which makes
 * this a negative test — polyfold must keep N cells.
 * Temporary: y[N]. External: b, L (input), x (output).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 32

static void forward_subst(const double b[N], double L[N][N], double x[N])
{
    int i, j;
    double y[N];

#pragma scop
    for (i = 0; i < N; i++) {
        y[i] = b[i];
        for (j = 0; j < i; j++)
            y[i] = y[i] - L[i][j] * y[j];
        y[i] = y[i] / L[i][i];
    }
    for (i = 0; i < N; i++)
        x[i] = y[i];
#pragma endscop
}

int main(void)
{
    static double L[N][N];
    double b[N], x[N];
    int i, j;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N; i++) {
        b[i] = (double)((i * 7) % 11) - 5.0;
        x[i] = 0.0;
        for (j = 0; j < N; j++)
            L[i][j] = (j < i) ? (double)((i * 3 + j * 5) % 9 - 4) / 16.0 : (j == i ? 2.0 + (double)(i % 3) : 0.0);
    }

    forward_subst(b, L, x);

    for (i = 0; i < N; i++) {
        total += x[i];
        weighted += (double)(i % 7 + 1) * x[i];
    }
    printf("forward_subst N=%d\n", N);
    printf("x sum %.9e weighted %.9e\n", total, weighted);
    printf("x[0] %.9e x[N-1] %.9e\n", x[0], x[N - 1]);
    return 0;
}
