#define N 10

void relu(double A[N])
{
  for (int i = 0; i < N; i++)
    if (A[i] < 0)
      A[i] = 0;
}
