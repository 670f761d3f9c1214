/* A temporary used only at an offset of its declaration: s[2 * N + i]
 * for 0 <= i < N - 1, written by one loop and read by the next (with
 * --no-fusion every value is live between them: N - 1 = 499 cells).
 * Successive modulo on the axes needs the same cells but wraps
 * (`s[(i + 2) % (N - 1)]`); with the first write's offset 2N removed no
 * access wraps: `s[i]` and `s[i - 1]`. */
#define N 500
void k(double in[N], double out[N])
{
    int i;
    double s[3 * N];
#pragma scop
    for (i = 0; i < N - 1; i++)
        s[2 * N + i] = in[i + 1] - in[i];
    for (i = 1; i < N; i++)
        out[i] = 0.25 * s[2 * N + i - 1];
#pragma endscop
}
