/* An initialiser without side effects (`abs` touches no memory) is
   dropped with the old declaration: the kernel writes every cell before
   reading it. */
#include <stdio.h>
#include <stdlib.h>
#define N 32
static unsigned pos = 0;
static unsigned next_byte(void)
{
    pos = pos + 1;
    return (pos * 37u) & 255u;
}
static unsigned kernel(const unsigned in[N])
{
    unsigned t[N] = { abs(-3), 4u };
    unsigned s = 0;
    int i;
    for (i = 0; i < N; i++)
        t[i] = in[i] + 1u;
    for (i = 0; i < N; i++)
        s = s + t[i];
    return s;
}
int main(void)
{
    unsigned in[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned)(i * 5);
    unsigned a = kernel(in);
    unsigned b = next_byte();
    printf("%u %u\n", a, b);
    return 0;
}
