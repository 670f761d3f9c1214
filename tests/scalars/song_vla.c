/* song_vla.c — corpus/song_example1.c with a symbolic size: `A` of seed
 * 003's Example 1 as a VLA, N given on the command line (N >= 0). Fused,
 * A becomes two rotating scalars; at N = 0 the fused steady loop runs no
 * iteration and its two neighbours' guards stop every access. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static void kernel(int N, double E[N + 1])
{
    int i;
    double A[N + 1];

#pragma scop
    for (i = 1; i <= N; i++)
        A[i] = E[i] + E[i - 1];
    for (i = 1; i <= N; i++)
        E[i] = A[i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 100;
    double *E = malloc(sizeof(double) * (size_t)(N + 1));
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i <= N; i++)
        E[i] = (double)((i * 13 + 3) % 17) - 8.0;
    kernel(N, E);
    for (i = 0; i <= N; i++) {
        total += E[i];
        weighted += (double)(i % 7 + 1) * E[i];
    }
    printf("N=%d E sum %.9e weighted %.9e\n", N, total, weighted);
    free(E);
    return 0;
}
