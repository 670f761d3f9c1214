void f(int n, int m, double A[100])
{
  for (int i = 0; i < n && i < m; i++)
    A[i] = 3.0;
}
