/* lcs contracted by hand to two rows: L[i][j] -> L[i % 2][j]. CORRECT:
 * row i reads rows i and i - 1 only, so the parity of i separates them. */
#include <stdio.h>

#define N 40
#define M 30

int lcs(const int a[N], const int b[M])
{
    int L[2][M + 1];
    int i, j, result;

#pragma scop
    for (j = 0; j <= M; j++)
        L[0][j] = 0;
    for (i = 1; i <= N; i++) {
        L[i % 2][0] = 0;
        for (j = 1; j <= M; j++)
            L[i % 2][j] = a[i - 1] == b[j - 1] ? L[(i - 1) % 2][j - 1] + 1
                    : L[(i - 1) % 2][j] > L[i % 2][j - 1] ? L[(i - 1) % 2][j] : L[i % 2][j - 1];
    }
    result = L[N % 2][M];
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
