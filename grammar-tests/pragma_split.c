void f(int n, double A[100])
{
#pragma scop
  n = 50;
  for (int i = 0; i < n; i++)
    A[i] = 0;
#pragma endscop
}
