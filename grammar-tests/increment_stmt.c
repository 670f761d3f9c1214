#define N 16

int count(int A[N])
{
  int c = 0;
  for (int i = 0; i < N; i++) {
    c++;
    A[i]--;
    ++A[i];
  }
  return c;
}
