/* A window of a signal addressed by absolute sample numbers: the loops
 * run from `base` to `base + n`, and the caller's window ends at the last
 * sample number an `int` holds. The second loop writes E[x + 1], which
 * the first reads one iteration later: fused, it is shifted by one, and
 * its last iteration runs one fused step after the first loop's last. The
 * fused text must not step `i` past INT_MAX (the original never does). */
#include <limits.h>
#include <stdio.h>

static void smooth_window(int base, int n, double E[n + 1])
{
    int i;
    double A[n];

    for (i = base; i < base + n; i++)
        A[i - base] = E[i - base] + E[i - base + 1];
    for (i = base; i < base + n; i++)
        E[i - base + 1] = 0.5 * A[i - base];
}

int main(void)
{
    double E[9];
    int k;
    for (k = 0; k <= 8; k++)
        E[k] = (double)((k * 13 + 3) % 17) - 8.0;
    smooth_window(INT_MAX - 8, 8, E);
    smooth_window(INT_MIN, 8, E);
    smooth_window(0, 8, E);
    smooth_window(INT_MAX - 1, 1, E);
    for (k = 0; k <= 8; k++)
        printf("E[%d] = %.17g\n", k, E[k]);
    return 0;
}
