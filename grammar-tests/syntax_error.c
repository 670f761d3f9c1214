void f(int n, double A[10])
{
  for (int i = 0; i < n; i++)
    A[i] = ) 1;
}
