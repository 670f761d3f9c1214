/* Issue 48: a scratch array that every step of a time loop rewrites
 * holds one value at a time (each tmp[i] is read right after its write).
 * Cell lifetimes made every cell conflict once T >= 2. */
#include <stdio.h>

#define N 100
#define T 10

static double a[N], b[N];

static void kernel(void)
{
    double tmp[N];
    int t, i;
    for (t = 0; t < T; t++)
        for (i = 0; i < N; i++) {
            tmp[i] = a[i] + t;
            b[i] = b[i] * 0.5 + tmp[i] * 2.0;
        }
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        a[i] = (double)(i % 13) * 0.25;
        b[i] = (double)(i % 7);
    }
    kernel();
    for (i = 0; i < N; i += 9)
        printf("%.6f\n", b[i]);
    return 0;
}
