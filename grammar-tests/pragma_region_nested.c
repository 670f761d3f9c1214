/* The pragmas sit inside a block; statements outside the region are not
   part of the SCoP. */
#define N 8

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    A[i] = i;
  {
#pragma scop
    for (int i = 0; i < N; i++)
      B[i] = A[i] * A[i];
#pragma endscop
  }
}
