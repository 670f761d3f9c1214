#define N 10

void f(double A[N * N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i * j] = 0;
}
