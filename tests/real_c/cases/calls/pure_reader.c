/* A function declared `pure` reads a global that the first loop writes:
   pure functions may read memory, so it keeps its order with that write. */
#include <stdio.h>
#define N 32
static double level;
static double peek(void) __attribute__((pure));
static double peek(void) { return level; }
static void kernel(const double in[N], double out[N])
{
    double t[N];
    int i;
    for (i = 0; i < N; i++) {
        t[i] = in[i] + 1.0;
        level = level + 0.5;
    }
    for (i = 0; i < N; i++)
        out[i] = t[i] * peek();
}
int main(void)
{
    double in[N], out[N];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        in[i] = i;
    kernel(in, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
