#define N 10

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++) {
    if (!(i >= 5))
      A[i] = 1;
    else
      B[i] = 2;
  }
}
