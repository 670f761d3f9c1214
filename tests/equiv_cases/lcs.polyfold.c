/* lcs.c as polyfold printed it (L folded onto N + M + 1 cells with rotating
 * indices): the committed, transformed kernel. CORRECT (polyfold's trace
 * verifier and the compiled run agree with the original). */
/* lcs: the length of the longest common subsequence of two int strings,
 * by dynamic programming on the temporary table L. The original. */
#include <stdio.h>

#define N 40
#define M 30

int lcs(const int a[N], const int b[M])
{
    int L[N + M + 1]; /* polyfold: L[i][j] -> L[(j + N + M - i + 1) % (N + M + 1)] */
    int L_r0, L_r1, L_r2, L_r3; /* polyfold: rotating indices, advanced by their loops */
    int i, j, result;

#pragma scop
    L_r0 = 0;
    for (i = 0; i <= N; i++) {
        L[L_r0] = 0;
        L_r0 = L_r0 > 0 ? L_r0 - 1 : N + M;
    }
    for (j = 0; j <= M; j++)
        L[j] = 0;
    for (i = 1; i <= N; i++) {
        L_r1 = (N + M - i + 2) % (N + M + 1);
        L_r2 = (N + M - i + 3) % (N + M + 1);
        L_r3 = (N + M - i + 1) % (N + M + 1);
        for (j = 1; j <= M; j++) {
            L[L_r1] = a[i - 1] == b[j - 1] ? L[L_r1] + 1
                    : L[L_r2] > L[L_r3] ? L[L_r2] : L[L_r3];
            L_r1 = L_r1 + 1 < N + M + 1 ? L_r1 + 1 : 0;
            L_r2 = L_r2 + 1 < N + M + 1 ? L_r2 + 1 : 0;
            L_r3 = L_r3 + 1 < N + M + 1 ? L_r3 + 1 : 0;
        }
    }
    result = L[(2 * M + 1) % (N + M + 1)];
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
