#define N 10

void f(double A[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
