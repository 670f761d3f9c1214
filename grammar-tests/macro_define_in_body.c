#define M 8
#define K 2

void f(double A[8], double B[8])
{
  for (int i = 0; i < M; i++)
    A[i] = B[i];
#undef M
#define M 3
  for (int i = 0; i < M; i++)
    B[i] = A[i] * K;
}
