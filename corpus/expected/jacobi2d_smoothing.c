/* jacobi2d_smoothing.c — 5-step Jacobi smoothing (multigrid), seed 000
 * (Bhaskaracharya, Bondhugula, Cohen, "SMO", POPL 2016) Figure 7(a) and
 * Table 1 ("jacobi-2d-smoothing").
 *
 * Step k (S0..S4) computes A_k from A_{k-1} (A0 from the input grid a):
 * interior points get a[i][j] + (sum of the 4 neighbours), boundary points
 * (i or j equal to 0 or N-1) are copied. The paper writes each step as one
 * statement with `(!isbound(i, j)) ? stencil : copy`; that expression reads
 * a[i-1][j] etc. at the boundary in the polyhedral model (C evaluates only
 * one branch, the model reads both), i.e. out of bounds at i = 0. Here each
 * step is an if/else on the same affine condition, so every modelled
 * access is in bounds; the values are the same.
 * As DESIGN.md asks, the input grid a is initialised inside the SCoP (from
 * the external input `in`) and the output grid A4 is consumed inside it (a
 * weighted sum into the local scalar `result`, returned and printed), so a
 * and A0..A4 are all temporaries.
 *
 * Temporaries: a, A0, A1, A2, A3, A4, each N x N.
 * Target (Table 1, Fig. 7(e)): the five step arrays in one (N+2) x N buffer,
 * A[(i + 3 - 2k) % (N + 2)][j % N] (baseline: A_{k % 2}, 2N^2); max-live
 * of those values N^2 + N - 1 (DESIGN.md); a may share the buffer too.
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define N 64

static double jacobi2d_smoothing_kernel(double in[N][N])
{
    int i, j;
    double a[191]; /* polyfold: a[i][j] -> a[(j - 64 * i) % 191] */
    _Static_assert(N == 64, "polyfold: the storage of a is certified for these parameter values only");
    int a_r0, a_r1, a_r2, a_r3, a_r4, a_r5, a_r6, a_r7, a_r8, a_r9, a_r10, a_r11; /* polyfold: rotating indices, advanced by their loops */
    double A0[191]; /* polyfold: A0[c0][c1] -> A0[(c1 - 64 * c0) % 191] */
    _Static_assert(N == 64, "polyfold: the storage of A0 is certified for these parameter values only");
    int A0_r0, A0_r1, A0_r2, A0_r3, A0_r4, A0_r5, A0_r6, A0_r7, A0_r8, A0_r9, A0_r10, A0_r11; /* polyfold: rotating indices, advanced by their loops */
    double A1[191]; /* polyfold: A1[c0][c1] -> A1[(c1 - 64 * c0) % 191] */
    _Static_assert(N == 64, "polyfold: the storage of A1 is certified for these parameter values only");
    int A1_r0, A1_r1, A1_r2, A1_r3, A1_r4, A1_r5, A1_r6, A1_r7, A1_r8, A1_r9, A1_r10; /* polyfold: rotating indices, advanced by their loops */
    double A2[191]; /* polyfold: A2[c0][c1] -> A2[(c1 - 64 * c0) % 191] */
    _Static_assert(N == 64, "polyfold: the storage of A2 is certified for these parameter values only");
    int A2_r0, A2_r1, A2_r2, A2_r3, A2_r4, A2_r5, A2_r6, A2_r7, A2_r8, A2_r9; /* polyfold: rotating indices, advanced by their loops */
    double A3[191]; /* polyfold: A3[c0][c1] -> A3[(c1 - 64 * c0) % 191] */
    _Static_assert(N == 64, "polyfold: the storage of A3 is certified for these parameter values only");
    int A3_r0, A3_r1, A3_r2, A3_r3, A3_r4, A3_r5, A3_r6, A3_r7, A3_r8, A3_r9; /* polyfold: rotating indices, advanced by their loops */
    double A4[N]; /* polyfold: A4[c0][c1] -> A4[c1] */
    double result = 0.0;

#pragma scop
    for (i = 0; i <= 4; i++) {
        if (i <= N - 1)
            for (j = 0, a_r0 = (j - 64 * i + 382) % 191; j < N; ++j, a_r0 = a_r0 + 1 < 191 ? a_r0 + 1 : 0)
                a[a_r0] = in[i][j];
        if (i >= 1 && i <= N)
            for (j = 0, a_r1 = (j - 64 * i + 446) % 191, a_r2 = (j - 64 * i + 319) % 191, a_r3 = (j - 64 * i + 382) % 191, a_r4 = (j - 64 * i + 445) % 191; j < N; ++j, a_r1 = a_r1 + 1 < 191 ? a_r1 + 1 : 0, a_r2 = a_r2 + 1 < 191 ? a_r2 + 1 : 0, a_r3 = a_r3 + 1 < 191 ? a_r3 + 1 : 0, a_r4 = a_r4 + 1 < 191 ? a_r4 + 1 : 0)
                if ((i - 1) == 0 || (i - 1) == N - 1 || j == 0 || j == N - 1)
                    A0[a_r1] = a[a_r1];
                else
                    A0[j - 64 * i + 255] = a[j - 64 * i + 255] + (a[a_r2] + a[a_r3] + a[a_r4] + a[j - 64 * i + 256]);
        if (i >= 2 && i <= N + 1)
            for (j = 0, A0_r0 = (j - 64 * i + 319) % 191, A0_r1 = (j - 64 * i + 383) % 191; j < N; ++j, A0_r0 = A0_r0 + 1 < 191 ? A0_r0 + 1 : 0, A0_r1 = A0_r1 + 1 < 191 ? A0_r1 + 1 : 0)
                if ((i - 2) == 0 || (i - 2) == N - 1 || j == 0 || j == N - 1)
                    A1[A0_r0] = A0[A0_r0];
                else
                    A1[j - 64 * i + 319] = A0[j - 64 * i + 319] + (A0[A0_r1] + A0[j - 64 * i + 255] + A0[j - 64 * i + 318] + A0[j - 64 * i + 320]);
        if (i >= 3 && i <= N + 2)
            for (j = 0, A1_r0 = (j - 64 * i + 383) % 191; j < N; ++j, A1_r0 = A1_r0 + 1 < 191 ? A1_r0 + 1 : 0)
                if ((i - 3) == 0 || (i - 3) == N - 1 || j == 0 || j == N - 1)
                    A2[A1_r0] = A1[A1_r0];
                else
                    A2[j - 64 * i + 383] = A1[j - 64 * i + 383] + (A1[j - 64 * i + 256] + A1[j - 64 * i + 319] + A1[j - 64 * i + 382] + A1[j - 64 * i + 384]);
        if (i >= 4)
            for (j = 0; j < N; ++j)
                if ((i - 4) == 0 || (i - 4) == N - 1 || j == 0 || j == N - 1)
                    A3[j - 64 * i + 256] = A2[j - 64 * i + 256];
                else
                    A3[(j - 64 * (i - 4) + 4202) % 191] = A2[(j - 64 * (i - 4) + 4202) % 191] + (A2[(j - 64 * (i - 5) + 4202) % 191] + A2[(j - 64 * (i - 3) + 4202) % 191] + A2[((j - 1) - 64 * (i - 4) + 4202) % 191] + A2[((j + 1) - 64 * (i - 4) + 4202) % 191]);
    }
    for (i = 5; i <= N - 1; i++) {
        for (j = 0, a_r5 = (j - 64 * i + 4202) % 191; j < N; ++j, a_r5 = a_r5 + 1 < 191 ? a_r5 + 1 : 0)
            a[a_r5] = in[i][j];
        for (j = 0, a_r6 = (j - 64 * i + 4266) % 191, a_r7 = (j - 64 * i + 4330) % 191, a_r8 = (j - 64 * i + 4202) % 191, a_r9 = (j - 64 * i + 4265) % 191, a_r10 = (j - 64 * i + 4267) % 191; j < N; ++j, a_r6 = a_r6 + 1 < 191 ? a_r6 + 1 : 0, a_r7 = a_r7 + 1 < 191 ? a_r7 + 1 : 0, a_r8 = a_r8 + 1 < 191 ? a_r8 + 1 : 0, a_r9 = a_r9 + 1 < 191 ? a_r9 + 1 : 0, a_r10 = a_r10 + 1 < 191 ? a_r10 + 1 : 0)
            if ((i - 1) == 0 || (i - 1) == N - 1 || j == 0 || j == N - 1)
                A0[a_r6] = a[a_r6];
            else
                A0[a_r6] = a[a_r6] + (a[a_r7] + a[a_r8] + a[a_r9] + a[a_r10]);
        for (j = 0, A0_r2 = (j - 64 * i + 4330) % 191, A0_r3 = (j - 64 * i + 4394) % 191, A0_r4 = (j - 64 * i + 4266) % 191, A0_r5 = (j - 64 * i + 4329) % 191, A0_r6 = (j - 64 * i + 4331) % 191; j < N; ++j, A0_r2 = A0_r2 + 1 < 191 ? A0_r2 + 1 : 0, A0_r3 = A0_r3 + 1 < 191 ? A0_r3 + 1 : 0, A0_r4 = A0_r4 + 1 < 191 ? A0_r4 + 1 : 0, A0_r5 = A0_r5 + 1 < 191 ? A0_r5 + 1 : 0, A0_r6 = A0_r6 + 1 < 191 ? A0_r6 + 1 : 0)
            if ((i - 2) == 0 || (i - 2) == N - 1 || j == 0 || j == N - 1)
                A1[A0_r2] = A0[A0_r2];
            else
                A1[A0_r2] = A0[A0_r2] + (A0[A0_r3] + A0[A0_r4] + A0[A0_r5] + A0[A0_r6]);
        for (j = 0, A1_r1 = (j - 64 * i + 4394) % 191, A1_r2 = (j - 64 * i + 4458) % 191, A1_r3 = (j - 64 * i + 4330) % 191, A1_r4 = (j - 64 * i + 4393) % 191, A1_r5 = (j - 64 * i + 4395) % 191; j < N; ++j, A1_r1 = A1_r1 + 1 < 191 ? A1_r1 + 1 : 0, A1_r2 = A1_r2 + 1 < 191 ? A1_r2 + 1 : 0, A1_r3 = A1_r3 + 1 < 191 ? A1_r3 + 1 : 0, A1_r4 = A1_r4 + 1 < 191 ? A1_r4 + 1 : 0, A1_r5 = A1_r5 + 1 < 191 ? A1_r5 + 1 : 0)
            if ((i - 3) == 0 || (i - 3) == N - 1 || j == 0 || j == N - 1)
                A2[A1_r1] = A1[A1_r1];
            else
                A2[A1_r1] = A1[A1_r1] + (A1[A1_r2] + A1[A1_r3] + A1[A1_r4] + A1[A1_r5]);
        for (j = 0, A2_r0 = (j - 64 * i + 4458) % 191, A2_r1 = (j - 64 * i + 4522) % 191, A2_r2 = (j - 64 * i + 4394) % 191, A2_r3 = (j - 64 * i + 4457) % 191, A2_r4 = (j - 64 * i + 4459) % 191; j < N; ++j, A2_r0 = A2_r0 + 1 < 191 ? A2_r0 + 1 : 0, A2_r1 = A2_r1 + 1 < 191 ? A2_r1 + 1 : 0, A2_r2 = A2_r2 + 1 < 191 ? A2_r2 + 1 : 0, A2_r3 = A2_r3 + 1 < 191 ? A2_r3 + 1 : 0, A2_r4 = A2_r4 + 1 < 191 ? A2_r4 + 1 : 0)
            if ((i - 4) == 0 || (i - 4) == N - 1 || j == 0 || j == N - 1)
                A3[A2_r0] = A2[A2_r0];
            else
                A3[A2_r0] = A2[A2_r0] + (A2[A2_r1] + A2[A2_r2] + A2[A2_r3] + A2[A2_r4]);
        for (j = 0, A3_r0 = (j - 64 * i + 4522) % 191, A3_r1 = (j - 64 * i + 4586) % 191, A3_r2 = (j - 64 * i + 4458) % 191, A3_r3 = (j - 64 * i + 4521) % 191, A3_r4 = (j - 64 * i + 4523) % 191; j < N; ++j, A3_r0 = A3_r0 + 1 < 191 ? A3_r0 + 1 : 0, A3_r1 = A3_r1 + 1 < 191 ? A3_r1 + 1 : 0, A3_r2 = A3_r2 + 1 < 191 ? A3_r2 + 1 : 0, A3_r3 = A3_r3 + 1 < 191 ? A3_r3 + 1 : 0, A3_r4 = A3_r4 + 1 < 191 ? A3_r4 + 1 : 0)
            if ((i - 5) == 0 || (i - 5) == N - 1 || j == 0 || j == N - 1)
                A4[j] = A3[A3_r0];
            else
                A4[j] = A3[A3_r0] + (A3[A3_r1] + A3[A3_r2] + A3[A3_r3] + A3[A3_r4]);
        for (j = 0; j < N; ++j)
            result += (double)(((i - 5) * 3 + j) % 7 + 1) * A4[j];
    }
    for (i = N; i <= N + 4; i++)
        if (i >= 5) {
            if (i <= N)
                for (j = 0, a_r11 = ((j - 64 * i + 4266) % 191 + 191) % 191; j < N; ++j, a_r11 = a_r11 + 1 < 191 ? a_r11 + 1 : 0)
                    if ((i - 1) == 0 || (i - 1) == N - 1 || j == 0 || j == N - 1)
                        A0[a_r11] = a[a_r11];
                    else
                        A0[(j - 64 * (i - 1) + 4202) % 191] = a[(j - 64 * (i - 1) + 4202) % 191] + (a[(j - 64 * (i - 2) + 4202) % 191] + a[(j - 64 * i + 4202) % 191] + a[((j - 1) - 64 * (i - 1) + 4202) % 191] + a[((j + 1) - 64 * (i - 1) + 4202) % 191]);
            if (i <= N + 1)
                for (j = 0, A0_r7 = ((j - 64 * i + 4330) % 191 + 191) % 191, A0_r8 = (j - 64 * i + 4394) % 191, A0_r9 = ((j - 64 * i + 4266) % 191 + 191) % 191, A0_r10 = ((j - 64 * i + 4329) % 191 + 191) % 191, A0_r11 = ((j - 64 * i + 4331) % 191 + 191) % 191; j < N; ++j, A0_r7 = A0_r7 + 1 < 191 ? A0_r7 + 1 : 0, A0_r8 = A0_r8 + 1 < 191 ? A0_r8 + 1 : 0, A0_r9 = A0_r9 + 1 < 191 ? A0_r9 + 1 : 0, A0_r10 = A0_r10 + 1 < 191 ? A0_r10 + 1 : 0, A0_r11 = A0_r11 + 1 < 191 ? A0_r11 + 1 : 0)
                    if ((i - 2) == 0 || (i - 2) == N - 1 || j == 0 || j == N - 1)
                        A1[A0_r7] = A0[A0_r7];
                    else
                        A1[A0_r7] = A0[A0_r7] + (A0[A0_r8] + A0[A0_r9] + A0[A0_r10] + A0[A0_r11]);
            if (i <= N + 2)
                for (j = 0, A1_r6 = (j - 64 * i + 4394) % 191, A1_r7 = (j - 64 * i + 4458) % 191, A1_r8 = ((j - 64 * i + 4330) % 191 + 191) % 191, A1_r9 = (j - 64 * i + 4393) % 191, A1_r10 = (j - 64 * i + 4395) % 191; j < N; ++j, A1_r6 = A1_r6 + 1 < 191 ? A1_r6 + 1 : 0, A1_r7 = A1_r7 + 1 < 191 ? A1_r7 + 1 : 0, A1_r8 = A1_r8 + 1 < 191 ? A1_r8 + 1 : 0, A1_r9 = A1_r9 + 1 < 191 ? A1_r9 + 1 : 0, A1_r10 = A1_r10 + 1 < 191 ? A1_r10 + 1 : 0)
                    if ((i - 3) == 0 || (i - 3) == N - 1 || j == 0 || j == N - 1)
                        A2[A1_r6] = A1[A1_r6];
                    else
                        A2[A1_r6] = A1[A1_r6] + (A1[A1_r7] + A1[A1_r8] + A1[A1_r9] + A1[A1_r10]);
            if (i <= N + 3)
                for (j = 0, A2_r5 = (j - 64 * i + 4458) % 191, A2_r6 = (j - 64 * i + 4522) % 191, A2_r7 = (j - 64 * i + 4394) % 191, A2_r8 = (j - 64 * i + 4457) % 191, A2_r9 = (j - 64 * i + 4459) % 191; j < N; ++j, A2_r5 = A2_r5 + 1 < 191 ? A2_r5 + 1 : 0, A2_r6 = A2_r6 + 1 < 191 ? A2_r6 + 1 : 0, A2_r7 = A2_r7 + 1 < 191 ? A2_r7 + 1 : 0, A2_r8 = A2_r8 + 1 < 191 ? A2_r8 + 1 : 0, A2_r9 = A2_r9 + 1 < 191 ? A2_r9 + 1 : 0)
                    if ((i - 4) == 0 || (i - 4) == N - 1 || j == 0 || j == N - 1)
                        A3[A2_r5] = A2[A2_r5];
                    else
                        A3[A2_r5] = A2[A2_r5] + (A2[A2_r6] + A2[A2_r7] + A2[A2_r8] + A2[A2_r9]);
            for (j = 0, A3_r5 = (j - 64 * i + 4522) % 191, A3_r6 = (j - 64 * i + 4586) % 191, A3_r7 = (j - 64 * i + 4458) % 191, A3_r8 = (j - 64 * i + 4521) % 191, A3_r9 = (j - 64 * i + 4523) % 191; j < N; ++j, A3_r5 = A3_r5 + 1 < 191 ? A3_r5 + 1 : 0, A3_r6 = A3_r6 + 1 < 191 ? A3_r6 + 1 : 0, A3_r7 = A3_r7 + 1 < 191 ? A3_r7 + 1 : 0, A3_r8 = A3_r8 + 1 < 191 ? A3_r8 + 1 : 0, A3_r9 = A3_r9 + 1 < 191 ? A3_r9 + 1 : 0)
                if ((i - 5) == 0 || (i - 5) == N - 1 || j == 0 || j == N - 1)
                    A4[j] = A3[A3_r5];
                else
                    A4[j] = A3[A3_r5] + (A3[A3_r6] + A3[A3_r7] + A3[A3_r8] + A3[A3_r9]);
            for (j = 0; j < N; ++j)
                result += (double)(((i - 5) * 3 + j) % 7 + 1) * A4[j];
        }
#pragma endscop
    return result;
}

int main(void)
{
    static double in[N][N];
    int i, j;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            in[i][j] = (double)((i * 29 + j * 17 + 7) % 31) - 15.0;

    printf("jacobi2d_smoothing N=%d steps=5\n", N);
    printf("result %.9e\n", jacobi2d_smoothing_kernel(in));
    return 0;
}
