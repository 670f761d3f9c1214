/* A difference over five samples of a scaled signal, numbered from
 * `base`: the scaled samples fold onto 6 cells, whose index rotates with
 * the loop (a variable started by `(i - base) % 6` and advanced in the
 * header). The caller's windows end at INT_MAX and start at INT_MIN: the
 * start and the update must compute nothing the original does not. */
#include <limits.h>
#include <stdio.h>

static void diff5(int base, int n, const double x[n], double y[n])
{
    int i;
    double t[n];

    for (i = base; i < base + n; i++) {
        t[i - base] = 2.0 * x[i - base] + 1.0;
        if (i >= base + 5)
            y[i - base] = t[i - base] - t[i - base - 5];
    }
}

int main(void)
{
    enum { n = 40 };
    double x[n], y[n];
    int k;
    for (k = 0; k < n; k++) {
        x[k] = (double)((k * 7 + 3) % 11) - 5.0;
        y[k] = 0.0;
    }
    diff5(INT_MAX - n, n, x, y);
    for (k = 0; k < n; k++)
        printf("%g ", y[k]);
    diff5(INT_MIN, n, x, y);
    diff5(-7, n, x, y);
    for (k = 0; k < n; k++)
        printf("%g ", y[k]);
    printf("\n");
    return 0;
}
