void f(int n, int m, double A[1000])
{
  for (int i = 0; i < n * m; i++)
    A[i] = 0;
}
