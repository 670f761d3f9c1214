#define N 10

int find(double A[N])
{
  for (int i = 0; i < N; i++)
    if (i == 3)
      break;
  for (int i = 0; i < N; i++) {
    A[i] = 1;
    if (i == 5)
      return i;
  }
  return -1;
}
