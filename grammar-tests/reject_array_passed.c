#define N 10

double sum(double *v, int n);

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = sum(A, N);
}
