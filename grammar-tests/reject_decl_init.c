#define N 10

void f(double A[N], double B[N])
{
#pragma scop
  for (int i = 0; i < N; i++) {
    double t = A[i];
    B[i] = t * t;
  }
#pragma endscop
}
