/* Issue 48: a matrix product kept in a scratch T, then reduced row by
 * row. In this schedule every cell of T is live at once; fused, each
 * T[i][j] is read in the iteration that computes it (one cell). The
 * fusion walks B across its rows: it is made by default while one step
 * stays small (all of B at N = 24), only with --min-memory beyond, and
 * the report then says so instead of claiming that nothing smaller can
 * exist. */
#include <stdio.h>

#define N 24

static double A[N][N], B[N][N], out[N];

static void kernel(void)
{
    double T[N][N];
    int i, j, l;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            T[i][j] = 0.0;
            for (l = 0; l < N; l++)
                T[i][j] += A[i][l] * B[l][j];
        }
    for (i = 0; i < N; i++) {
        out[i] = 0.0;
        for (j = 0; j < N; j++)
            out[i] += T[i][j] * (j % 3 + 1);
    }
}

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            A[i][j] = (double)((i + 2 * j) % 5) - 2.0;
            B[i][j] = (double)((3 * i + j) % 7) * 0.5;
        }
    kernel();
    for (i = 0; i < N; i += 5)
        printf("%.3f\n", out[i]);
    return 0;
}
