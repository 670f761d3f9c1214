#define N 64
#define M 32

void init(double A[N][M])
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      A[i][j] = i + j;
}
