#define N 10
#define GET(i) A[(i)]

void f(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = GET(i) * 2;
}
