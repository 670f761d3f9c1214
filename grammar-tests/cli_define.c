// polyfold-args: -D N=10 -D T=3
#define N 1000

void f(double A[N])
{
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N; i++)
      A[i] = A[i - 1];
}
