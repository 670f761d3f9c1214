/* A temporary declared with an initialiser whose values no read sees
 * (every cell read is written first): its new declaration must drop the
 * initialiser, whose shape is the old declarator's (`{{7, 8, 9}, ...}`
 * into `int c[5]` draws "braces around scalar initializer" and, for a
 * smaller array, "excess elements"). */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define N 6

int main(void)
{
    int i, j;
    int out[N];
    int c[N][N] = {{7, 8, 9}, {10, 11, 12}}; /* initialised */

#pragma scop
    for (i = 1; i < N; i++)
        for (j = 0; j < i; j++)
            c[i][j] = i + j;
    for (j = 0; j < N - 1; j++)
        out[j] = c[N - 1][j];
#pragma endscop
    for (j = 0; j < N - 1; j++)
        printf("%d\n", out[j]);
    return 0;
}
