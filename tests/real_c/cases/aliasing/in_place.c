/* A kernel with an input and an output parameter, called in place:
   legal C without `restrict`. The first loop reads in[i - 1], which the
   second loop overwrites through `out` at the iteration before: fused,
   the first loop would read the new value. */
#include <stdio.h>
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
    double x[50];
    double s = 0.0;
    for (int i = 0; i < 50; i++)
        x[i] = (i * 13) % 17;
    smooth(50, x, x);
    for (int i = 0; i < 50; i++)
        s += x[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
