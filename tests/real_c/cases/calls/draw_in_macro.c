/* The draw hides in an object-like macro: it is a call all the same. */
#include <stdio.h>
#define N 40
#define DRAW next_value()
static int seed = 3;
static int next_value(void)
{
    seed = (seed * 75 + 74) % 65537;
    return seed;
}
static void kernel(int out[N])
{
    int t[N];
    int i;
    for (i = 0; i < N; i++)
        t[i] = DRAW % 100;
    for (i = 0; i < N; i++)
        out[i] = t[i] - DRAW % 7;
}
int main(void)
{
    int out[N];
    long s = 0;
    kernel(out);
    for (int i = 0; i < N; i++)
        s += (long)out[i] * (i + 1);
    printf("%ld\n", s);
    return 0;
}
