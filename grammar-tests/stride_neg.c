#define N 100

void down3(double A[N])
{
  for (int i = N - 1; i >= 0; i -= 3)
    A[i] = 1.0;
}
