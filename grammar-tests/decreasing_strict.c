void f(int n, double A[200])
{
  for (int i = n; i > 0; --i)
    A[i] = A[i - 1];
}
