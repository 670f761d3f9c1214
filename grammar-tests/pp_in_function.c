/* Loops under #ifdef inside a function are not analysed: which branch is
   built may change with the build. The loop outside still is. */
#define N 10

void f(double A[N], double B[N])
{
#ifdef FAST
  for (int i = 0; i < N; i++)
    A[i] = 1;
#else
  for (int i = 0; i < N; i++)
    A[i] = 2;
#endif
  for (int i = 0; i < N; i++)
    B[i] = 3;
}
