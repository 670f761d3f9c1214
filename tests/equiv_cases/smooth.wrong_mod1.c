/* smooth, contracted with a modulus one too small: y[i] -> y[i % 1].
 * WRONG: y[i - 1] is overwritten by y[i] before out[i] reads it, so out[i]
 * = y[i] - y[i] = 0 (the compiled program prints 0 for every i >= 1). */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[1];
    int i;

    for (i = 0; i < N; i++) {
        y[i % 1] = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i] = y[i % 1] - y[(i - 1) % 1];
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
