#define N 10

void f(double A[N], double B[2 * N])
{
  for (int i = 0; i < 2 * N; i++)
    A[i / 2] = B[i];
}
