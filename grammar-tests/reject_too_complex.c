#define N 100

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    if (i != 1 && i != 2 && i != 3 && i != 4 && i != 5 && i != 6 && i != 7)
      A[i] = 0;
}
