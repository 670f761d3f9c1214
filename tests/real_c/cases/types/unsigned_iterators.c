/* Unsigned and size_t iterators wrap around instead of overflowing: the
 * front end does not model them (PF013), and the loops stay as written. */
#include <stddef.h>
#include <stdio.h>

#define N 16

static void scale(size_t n, const double x[N], double y[N])
{
    size_t i;
    unsigned k;
    double t[N];

    for (i = 0; i < n; i++)
        t[i] = 2.0 * x[i];
    for (k = 1; k < n; k++)
        y[k] = t[k] + t[k - 1];
}

int main(void)
{
    double x[N], y[N];
    int k;
    for (k = 0; k < N; k++) {
        x[k] = k * 0.5;
        y[k] = 0.0;
    }
    scale(N, x, y);
    for (k = 0; k < N; k++)
        printf("%g\n", y[k]);
    return 0;
}
