/* lcs: the length of the longest common subsequence of two int strings,
 * by dynamic programming on the temporary table L. The original. */
#include <stdio.h>

#define N 40
#define M 30

int lcs(const int a[N], const int b[M])
{
    int L[N + 1][M + 1];
    int i, j, result;

#pragma scop
    for (i = 0; i <= N; i++)
        L[i][0] = 0;
    for (j = 0; j <= M; j++)
        L[0][j] = 0;
    for (i = 1; i <= N; i++)
        for (j = 1; j <= M; j++)
            L[i][j] = a[i - 1] == b[j - 1] ? L[i - 1][j - 1] + 1
                    : L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1];
    result = L[N][M];
#pragma endscop
    return result;
}

int main(void)
{
    int a[N], b[M];
    int i;

    for (i = 0; i < N; i++)
        a[i] = (i * 7 + 3) % 3;
    for (i = 0; i < M; i++)
        b[i] = (i * 5 + 1) % 3;
    printf("lcs %d\n", lcs(a, b));
    return 0;
}
