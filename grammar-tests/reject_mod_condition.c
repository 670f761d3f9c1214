#define N 10

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    if (i % 2 == 0)
      A[i] = 0;
}
