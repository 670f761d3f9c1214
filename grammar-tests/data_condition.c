#define N 10

void f(double A[N], double B[N], double C[N])
{
  double s;
  for (int i = 0; i < N; i++) {
    if (A[i] < 0)
      A[i] = 0;
    if (B[i] == C[i])
      s = 1;
    else
      s = -1;
    if (A[i] > B[i]) {
      C[i] = s;
      if (i > 2)
        B[i] = A[i];
    }
  }
}
