void f(int a, int b, int n, double A[100])
{
  for (int i = (a > b ? a : b); i <= n; i++)
    A[i] = 2.0;
}
