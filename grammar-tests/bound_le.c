void f(int n, double A[100])
{
  int i;
  for (i = 1; i <= n; i++)
    A[i] = A[i - 1] * 2.0;
}
