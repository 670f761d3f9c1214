/* Constant coefficients, constant folding and casts to int are affine. */
#define N 10

void f(double A[4 * N + 3], double B[N][N])
{
  for (int i = 0; 2 * i + 1 < N; i++)
    for (int j = (int)(i - 1) * -1 + 1; j < N; j++)
      B[i][j] = A[3 * i - (j - 2 * (i + 1)) + 5];
}
