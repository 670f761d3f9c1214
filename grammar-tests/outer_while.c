#define N 10

void f(double A[N][N], int steps)
{
  int t = 0;
  while (t < steps) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        A[i][j] = A[i][j] * 0.5;
    t++;
  }
}
