/* jacobi with the two loops fused, the copy shifted by one iteration
 * (a[i - 1] is copied once b[i] has read it) and b contracted to b[i % 2].
 * CORRECT: b[i] reads a[i - 1], a[i], a[i + 1], none of which has been
 * overwritten yet (only a[1..i-2] have); b[i - 1] is still in its cell
 * (b[i] went to the other one) when it is copied. The last copy is peeled. */
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
        a[N - 2] = b[(N - 2) % 2];
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
