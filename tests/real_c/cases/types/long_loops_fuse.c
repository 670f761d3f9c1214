/* Both loops count in `long`: they fuse, and the fused loop counts in
 * `long` too, so `j * 1000000` keeps its type (3000 seconds are past an
 * `int`'s range of microseconds). */
#include <stdio.h>

#define N 16

static void stamps(long lo, long out[N])
{
    long i, j;
    long t[N];

    for (i = lo; i < lo + N; i++)
        t[i - lo] = 7 * i % 1000;
    for (j = lo + 1; j < lo + N; j++)
        out[j - lo] = j * 1000000 + t[j - lo - 1];
}

int main(void)
{
    long out[N];
    int k;
    for (k = 0; k < N; k++)
        out[k] = 0;
    stamps(1000, out);
    for (k = 0; k < N; k++)
        printf("out[%d] = %ld\n", k, out[k]);
    stamps(3000, out);
    for (k = 0; k < N; k++)
        printf("out[%d] = %ld\n", k, out[k]);
    return 0;
}
