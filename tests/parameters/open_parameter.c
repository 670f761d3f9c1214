/* A parameter declared `double B[]` has no extent to check a modulus
 * against: with `--temp kernel:B` it keeps its layout. */
#include <stdio.h>

#define N 64

static void kernel(double A[N], double B[])
{
    int i;
    B[0] = A[0];
    B[1] = A[1];
    for (i = 2; i < N; i++) {
        B[i] = B[i - 2] * 0.5 + A[i];
        A[i] = B[i];
    }
}

int main(void)
{
    static double A[N], B[N];
    int i;
    double s = 0.0;
    for (i = 0; i < N; i++)
        A[i] = (i % 5) * 0.5;
    kernel(A, B);
    for (i = 0; i < N; i++)
        s += A[i];
    printf("%.6f\n", s);
    return 0;
}
