#define N 10

void f(double A[N])
{
  for (int i = 0; i < N; i++) {
    A[i] = 1;
    i = i + 1;
  }
}
