#define N 10
#define OFF 1+1

void f(double A[N])
{
  for (int i = OFF; i < N; i++)
    A[i] = A[i - OFF];
}

#undef N
#undef OFF
#define N 4
#define OFF 3

void g(double A[N])
{
  for (int i = OFF; i < N; i++)
    A[i] = A[i - OFF];
}
