/* `#undef`/`#define` inside a function body: the loops before it use
 * M = 8, the loop after it M = 3. Neither definition holds for the whole
 * function, so code using M there is not analysed with either. */
#include <stdio.h>

#define M 8

static double diag(const double in[8])
{
    double t[M][M];
    double s = 0.0;
    int i, j;
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            t[i][j] = in[i] * in[j] + i - j;
#undef M
#define M 3
    for (i = 0; i < M; i++)
        s += t[i][i] + t[i][M - 1 - i];
    return s;
}

int main(void)
{
    double a[8];
    int i;
    for (i = 0; i < 8; i++)
        a[i] = 0.75 * i - 2.0;
    printf("%.6f\n", diag(a));
    return 0;
}
