#define N 10

void f(double A[N], double B[N], double C[N])
{
  for (int i = 0; i < N; i++)
    C[i] = A[i] > B[i] ? A[i] : B[i];
}
