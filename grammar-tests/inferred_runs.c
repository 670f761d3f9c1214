#include <stdio.h>
#define N 100

int main(void)
{
  double A[N], B[N];
  for (int i = 0; i < N; i++)
    A[i] = i;
  for (int i = 0; i < N; i++)
    B[i] = 2 * A[i];
  printf("%f\n", B[N - 1]);
  for (int i = 1; i < N; i++)
    B[i] += B[i - 1];
  printf("%f\n", B[N - 1]);
  return 0;
}
