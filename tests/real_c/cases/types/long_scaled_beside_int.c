/* Timestamps in microseconds: the second loop scales its `long` counter
 * by a million, which overflows an `int` past 2147 seconds. Both loops
 * run over the same seconds, and the second reads what the first wrote
 * one second back: fused, the second body would run with the first
 * loop's `int` iterator, and `j * 1000000` in `int`. */
#include <stdio.h>

#define N 16

static void stamps(int lo, int n, long out[N])
{
    int i;
    long j;
    long t[N];

    for (i = lo; i < lo + n; i++)
        t[i - lo] = 7 * i % 1000;
    for (j = lo + 1; j < lo + n; j++)
        out[j - lo] = j * 1000000 + t[j - lo - 1];
}

int main(void)
{
    long out[N];
    int k;
    for (k = 0; k < N; k++)
        out[k] = 0;
    stamps(1000, N, out);
    for (k = 0; k < N; k++)
        printf("out[%d] = %ld\n", k, out[k]);
    stamps(3000, N, out);
    for (k = 0; k < N; k++)
        printf("out[%d] = %ld\n", k, out[k]);
    return 0;
}
