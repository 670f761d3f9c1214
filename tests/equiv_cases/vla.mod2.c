/* vla fused and contracted by hand: y[i] -> y[i % 2]. CORRECT: y[i] is
 * read at i and i + 1 only. */
#include <stdio.h>

void vla(int n, const double x[n], double out[n])
{
    double y[2];
    int i;

    for (i = 0; i < n; i++) {
        y[i % 2] = x[i] * x[i];
        if (i >= 1)
            out[i] = y[i % 2] + y[(i - 1) % 2];
    }
}

int main(void)
{
    double x[16], out[16];
    int i;

    for (i = 0; i < 16; i++) {
        x[i] = (double)(i % 5) - 2.0;
        out[i] = 0.0;
    }
    vla(16, x, out);
    for (i = 0; i < 16; i++)
        printf("%d %.17g\n", i, out[i]);
    return 0;
}
