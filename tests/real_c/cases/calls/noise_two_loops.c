/* A linear congruential generator drawn in two loops: the draws of the
   second loop must come after every draw of the first. Fusing the loops
   would interleave them (one draw for t[i], one for out[i], ...) and
   change every value after the first. */
#include <stdio.h>
#define N 64
static unsigned state = 12345u;
static double noise(void)
{
    state = state * 1103515245u + 12345u;
    return (double)(state >> 16) / 65536.0;
}
static void kernel(double out[N])
{
    double t[N];
    int i;
    for (i = 0; i < N; i++)
        t[i] = noise();
    for (i = 0; i < N; i++)
        out[i] = t[i] * noise();
}
int main(void)
{
    double out[N];
    double s = 0.0;
    kernel(out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
