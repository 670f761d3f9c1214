#define N 4

void f(double A[N][N][N][N], double s)
{
  for (int a = 0; a < N; a++)
    for (int b = 0; b < N; b++)
      for (int c = 0; c < N; c++)
        for (int d = 0; d < N; d++)
          A[a][b][c][d] = s * A[d][c][b][a];
}
