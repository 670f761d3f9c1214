#define N 32
#define M 16
#define FOR(i, lo, hi) for (i = (lo); i < (hi); i++)
#define LOOP_DOWN(v, n) for (int v = (n) - 1; v >= 0; v--)

void f(double A[N][M], double B[N])
{
  int i, j;
  FOR(i, 1, N)
    FOR(j, 0, M)
      A[i][j] = A[i - 1][j] + B[i];
  LOOP_DOWN(k, N)
    B[k] = A[k][0];
}
