#define N 10

void f(double A[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (i > 0 && j < i)
        A[i][j] = A[i - 1][j];
}
