/* A function parameter declared a temporary with `--temp kernel:B`: the
 * caller passes its own array, so the declarator must stay as written
 * (`double B[N]` decays to a pointer; `double B` would not compile). */
#include <stdio.h>

#define N 100

static void kernel(double A[N], double B[N], double C[N][N])
{
    int i, j;
    for (i = 0; i < N; i++) {
        B[i] = A[i] * 2.0;
        A[i] = B[i] + 1.0;
    }
    for (i = 0; i < N; i++) {
        C[i][0] = A[i];
        C[i][1] = A[i] * 0.5;
        for (j = 2; j < N; j++) {
            C[i][j] = C[i][j - 2] * 0.5 + A[i];
            A[i] = A[i] + C[i][j] * 0.25;
        }
    }
}

int main(void)
{
    static double A[N], B[N], C[N][N];
    int i, j;
    double s = 0.0;
    for (i = 0; i < N; i++) {
        A[i] = (i % 7) * 0.5;
        for (j = 0; j < N; j++)
            C[i][j] = ((i + j) % 5) * 0.25;
    }
    kernel(A, B, C);
    for (i = 0; i < N; i++)
        s += A[i];
    printf("%.6f\n", s);
    return 0;
}
