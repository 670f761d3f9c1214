#define N 10

void f(double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = i;
#pragma endscop
  B[0] = 1;
#pragma scop
  for (i = 1; i < N; i++)
    B[i] = B[i - 1] + A[i];
#pragma endscop
}
