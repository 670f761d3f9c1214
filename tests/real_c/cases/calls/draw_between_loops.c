/* A statement between the loops draws from the generator that the first
   loop draws from: moved before that loop (to fuse the loops around it),
   `bias` would get the first draw instead of the 49th. */
#include <stdio.h>
#define N 48
static unsigned state = 777u;
static double noise(void)
{
    state = state * 1664525u + 1013904223u;
    return (double)(state >> 8) / 16777216.0;
}
static void kernel(const double in[N], double out[N])
{
    double t[N];
    double bias;
    int i;
    for (i = 0; i < N; i++)
        t[i] = in[i] * noise();
    bias = noise();
    for (i = 0; i < N; i++)
        out[i] = t[i] + bias;
}
int main(void)
{
    double in[N], out[N];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        in[i] = (i * 7) % 11;
    kernel(in, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
