#define N 20

void f(double A[N][N], double s[N])
{
  for (int i = 0; i < N; i++) {
    s[i] = 0;
    for (int j = 0; j < N; j++)
      s[i] = s[i] + A[i][j];
    s[i] = s[i] / N;
  }
}
