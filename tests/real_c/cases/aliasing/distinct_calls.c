/* The same kernel, called only with distinct arrays: every call site is
   in this file (the function is static), so the parameters are distinct
   and the loops fuse. */
#include <stdio.h>
static double g[50];
static void smooth(int n, const double in[n], double out[n])
{
    double t[n];
    int i;
    for (i = 1; i < n; i++)
        t[i] = in[i] + in[i - 1];
    for (i = 1; i < n; i++)
        out[i] = t[i] * 0.5;
}
int main(void)
{
    double x[50], y[50] = {0};
    double s = 0.0;
    for (int i = 0; i < 50; i++)
        x[i] = (i * 13) % 17;
    smooth(50, x, y);
    smooth(50, &y[0], g);
    for (int i = 0; i < 50; i++)
        s += g[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
