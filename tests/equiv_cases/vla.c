/* vla: sizes are a function parameter n (no #define): equiv needs -D n=VALUE. */
#include <stdio.h>

void vla(int n, const double x[n], double out[n])
{
    double y[n];
    int i;

    for (i = 0; i < n; i++)
        y[i] = x[i] * x[i];
    for (i = 1; i < n; i++)
        out[i] = y[i] + y[i - 1];
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
