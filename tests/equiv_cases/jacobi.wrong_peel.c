/* jacobi fused and contracted as in jacobi.fused_mod2.c, but the peeled
 * last copy reads the wrong cell: b[(N - 1) % 2] in place of
 * b[(N - 2) % 2]. WRONG: a[N - 2] gets b[N - 3] (the compiled program
 * prints other values). */
#include <stdio.h>

#define N 20
#define T 4

void jacobi(double a[N])
{
    double b[2];
    int t, i;

    for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++) {
            b[i % 2] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
            if (i >= 2)
                a[i - 1] = b[(i - 1) % 2];
        }
        a[N - 2] = b[(N - 1) % 2];
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
