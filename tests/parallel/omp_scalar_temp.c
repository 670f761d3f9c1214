/* Class 7 of issue 14: a temporary written and read in one iteration of a
 * parallel loop. Sequentially `t` becomes one scalar; declared outside the
 * parallel region that scalar would be shared by every thread (a data
 * race). The output must keep `t[N]`. */
#include <stdio.h>
#define N 256

int main(void)
{
    static unsigned a[N], b[N];
    unsigned t[N];
    int i;
    for (i = 0; i < N; i++)
        a[i] = (unsigned)(i * 2654435761u) >> 7;
#pragma omp parallel for num_threads(4)
    for (i = 0; i < N; i++) {
        t[i] = a[i] * 3u + 1u;
        b[i] = t[i] * t[i] + (t[i] >> 3);
    }
    unsigned h = 0;
    for (i = 0; i < N; i++)
        h = h * 31u + b[i];
    printf("%u\n", h);
    return 0;
}
