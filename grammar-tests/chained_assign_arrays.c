/* A chained assignment of two arrays: one statement per target (it was
   refused as "two writes" before). */
#define N 10

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    A[i] = B[i] = 0;
}
