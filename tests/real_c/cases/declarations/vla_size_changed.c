/* The VLA's size is computed from `n` at the declaration; `n` then
   grows by 4, and the loops use cells 8 .. n + 7 of the new `n`, which
   the n + 12 cells of the old one hold. Without its offset the array
   needs `n` cells, but a declaration printed with the SCoP's `n` would
   use the value before (4 cells too few). */
#include <stdio.h>
static double kernel(int n, const double in[])
{
    double t[n + 12];
    double s = 0.0;
    int i;
    n = n + 4;
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
