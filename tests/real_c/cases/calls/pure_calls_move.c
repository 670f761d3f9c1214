/* Calls proven to touch no memory do not stop the fusion: a <math.h>
   function, a static helper that only computes from its argument, and a
   function declared `__attribute__((const))`. The temporary folds to one
   cell, and the output prints what the original prints. */
#include <math.h>
#include <stdio.h>
#define N 64
static double square(double x)
{
    double y = x * x;
    return y;
}
static double scale(double x) __attribute__((const));
static double scale(double x) { return 0.25 * x + 1.0; }
static void kernel(const double in[N], double out[N])
{
    double t[N];
    int i;
    for (i = 0; i < N; i++)
        t[i] = sqrt(in[i]) + square(in[i]);
    for (i = 0; i < N; i++)
        out[i] = scale(t[i]) + fabs(in[i]);
}
int main(void)
{
    double in[N], out[N];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        in[i] = i * 0.5;
    kernel(in, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
