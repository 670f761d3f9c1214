/* `n` grows before the declaration: the declaration and the loops see
   the same `n`, and the array folds (its offset removed: `n` cells). */
#include <stdio.h>
static double kernel(int n, const double in[])
{
    n = n + 4;
    double t[n + 12];
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        t[i + 8] = in[i] * 2.0;
    for (i = 0; i < n; i++)
        s = s + t[i + 8] * t[n + 7 - i];
    return s;
}
int main(void)
{
    double in[64];
    for (int i = 0; i < 64; i++)
        in[i] = (i * 3) % 7;
    printf("%.3f %.3f %.3f\n", kernel(1, in), kernel(9, in), kernel(40, in));
    return 0;
}
