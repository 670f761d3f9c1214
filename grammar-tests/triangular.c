#define N 10

void tri(double L[N][N], double x[N])
{
  for (int i = 0; i < N; i++) {
    x[i] = 0;
    for (int j = 0; j <= i; j++)
      x[i] += L[i][j];
  }
}
