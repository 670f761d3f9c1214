#include <stdio.h>
#define N 10

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    printf("%f\n", A[i]);
}
