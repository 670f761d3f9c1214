/* jacobi with the two loops fused WITHOUT the shift: a[i] = b[i] right
 * after b[i]. WRONG: b[i + 1] then reads the new a[i] in place of the old
 * one (a Gauss-Seidel sweep, not Jacobi); the compiled program prints
 * other values. */
#include <stdio.h>

#define N 20
#define T 4

void jacobi(double a[N])
{
    double b[N];
    int t, i;

    for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++) {
            b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
            a[i] = b[i];
        }
    }
}

int main(void)
{
    double a[N];
    int i;

    for (i = 0; i < N; i++)
        a[i] = (double)((i * 5 + 2) % 9) - 3.0;
    jacobi(a);
    for (i = 0; i < N; i++)
        printf("%d %.17g\n", i, a[i]);
    return 0;
}
