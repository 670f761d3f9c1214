/* filter_vla.c — corpus/filter_chain.c with a symbolic size: t1 and t2
 * as VLAs, N given on the command line (N >= 0). Shifted and fused, each
 * becomes three rotating scalars. */
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF

static void kernel(int N, const double in[N + 2], double out[N + 2])
{
    int i;
    double t1[N + 2];
    double t2[N + 2];

#pragma scop
    for (i = 1; i <= N; i++)
        t1[i] = (in[i - 1] + 2.0 * in[i] + in[i + 1]) * 0.25;
    for (i = 2; i <= N - 1; i++)
        t2[i] = (t1[i - 1] + 2.0 * t1[i] + t1[i + 1]) * 0.25;
    for (i = 3; i <= N - 2; i++)
        out[i] = t2[i + 1] - t2[i - 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 1000;
    double *in = malloc(sizeof(double) * (size_t)(N + 2));
    double *out = malloc(sizeof(double) * (size_t)(N + 2));
    int i;
    double total = 0.0, weighted = 0.0;

    for (i = 0; i < N + 2; i++)
        in[i] = (double)((i * 37 + 11) % 101) - 50.0;
    for (i = 0; i < N + 2; i++)
        out[i] = 0.0;
    kernel(N, in, out);
    for (i = 0; i < N + 2; i++) {
        total += out[i];
        weighted += (double)(i % 13 + 1) * out[i];
    }
    printf("N=%d out sum %.9e weighted %.9e\n", N, total, weighted);
    free(in);
    free(out);
    return 0;
}
