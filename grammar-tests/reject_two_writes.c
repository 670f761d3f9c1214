#define N 10

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    A[i] = B[i] = 0;
}
