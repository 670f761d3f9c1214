#define N 16

void f(double A[N], double B[N], int C[N])
{
  for (int i = 0; i < N; i++) {
    A[i] += B[i];
    A[i] -= 1.0;
    B[i] *= A[i];
    B[i] /= 2.0;
    C[i] <<= 1;
  }
}
