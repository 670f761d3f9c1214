#define N 10

void relu(double A[N][N])
{
  for (int i = 0; i < N; i++)
    if (A[i][0] < 0)
      for (int j = 0; j < N; j++)
        A[i][j] = 0;
}
