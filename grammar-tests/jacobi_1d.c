#define N 100
#define T 20

void jacobi(double A[N], double B[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
    for (i = 1; i < N - 1; i++)
      A[i] = B[i];
  }
#pragma endscop
}
