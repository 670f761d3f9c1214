#define N 100

void evens(double A[N])
{
  for (int i = 2; i < N; i += 2)
    A[i] = 0.0;
}
