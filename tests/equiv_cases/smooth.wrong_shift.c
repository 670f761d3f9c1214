/* smooth, contracted to y[i % 2] with the write of out shifted by one:
 * out[i - 1] in place of out[i]. WRONG: out[N - 1] is never written and
 * out[0] is overwritten (the compiled program prints other values). */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[2];
    int i;

    for (i = 0; i < N; i++) {
        y[i % 2] = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i - 1] = y[i % 2] - y[(i - 1) % 2];
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
