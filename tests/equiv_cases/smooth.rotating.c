/* smooth, contracted by hand to rotating scalars: cur = y[i], prev =
 * y[i - 1], advanced at the end of each iteration. CORRECT: prev holds
 * y[i - 1] when out[i] reads it. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double cur, prev = 0.0;
    int i;

    for (i = 0; i < N; i++) {
        cur = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i] = cur - prev;
        prev = cur;
    }
}

int main(void)
{
    double x[N], out[N];
    int i;

    for (i = 0; i < N; i++) {
        x[i] = (double)((i * 7 + 3) % 11) - 4.5;
        out[i] = -1.0;
    }
    smooth(x, out);
    for (i = 0; i < N; i++)
        printf("%d %.17g\n", i, out[i]);
    return 0;
}
