/* The same timestamps with the iterators declared in the loops' headers:
 * `for (int i = ...)` beside `for (long j = ...)`. A fused loop declares
 * one variable, of the first loop's type. */
#include <stdio.h>

#define N 16

static void stamps(int lo, int n, long out[N])
{
    long t[N];

    for (int i = lo; i < lo + n; i++)
        t[i - lo] = 7 * i % 1000;
    for (long j = lo + 1; j < lo + n; j++)
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
