/* A function in an inactive branch is not analysed, and a #define there
   is not read. */
#define N 10
#if 0
#define N 1000
void g(double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = 1;
}
#endif

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
