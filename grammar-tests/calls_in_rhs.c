#include <math.h>
#define N 8

double weight(int i);

void f(double A[N], double B[N])
{
  double s = 2.0;
  for (int i = 0; i < N; i++)
    A[i] = sqrt(B[i]) + weight(i) * s + fabs((double)i);
}
