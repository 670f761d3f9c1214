#define N 10

void g(int A[N], int B[N])
{
  int m;
  for (int i = 0; i < N; i++) {
    m = A[i] > B[i] ? A[i] : B[i];
    if (m == A[i])
      B[i] = 0;
    else
      A[i] = m;
  }
}
