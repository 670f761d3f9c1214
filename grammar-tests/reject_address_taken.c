#define N 10

void g(double *p);

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = g(&A[i]);
}
