#define N 10

void f(double A[N])
{
#pragma scop
  for (int i = 0; i < N; i++) {
    int k = 0;
    while (k < i)
      k++;
    A[i] = k;
  }
#pragma endscop
}
