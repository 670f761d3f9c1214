/* An exported kernel (not static: callers elsewhere) whose output is
   `restrict`: the caller promises no overlap, so the loops fuse. */
#include <stdio.h>
void smooth(int n, const double in[n], double out[restrict n])
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
    for (int i = 1; i < 50; i++)
        s += y[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
