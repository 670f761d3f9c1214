#define N 16

void f(double A[N], double B[N], double C[N], double D[N])
{
  for (int i = 0; i != N; i++)
    A[i] = 0;
  for (int i = 1; i < N; i *= 2)
    B[i] = 0;
  for (int i = 0; i < N; i--)
    C[i] = 0;
  for (int i = 0; 2 < N; i++)
    D[i] = 0;
}
