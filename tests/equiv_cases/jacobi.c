/* jacobi: the original. T time steps of a 3-point stencil on a[1..N-2]
 * through the temporary b, copied back. a is live-in and live-out. */
#include <stdio.h>

#define N 20
#define T 4

void jacobi(double a[N])
{
    double b[N];
    int t, i;

    for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++)
            b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
        for (i = 1; i < N - 1; i++)
            a[i] = b[i];
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
