#define N 10

void border(double A[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (i == 0 || j == N - 1)
        A[i][j] = 0;
}
