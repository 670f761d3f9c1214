#define N 10

double g(double *row);

void f(double A[N][N], double s[N])
{
  for (int i = 0; i < N; i++)
    s[i] = g(A[i]);
}
