void f(unsigned n, double A[100])
{
  for (int i = 0; i < n - 1; i++)
    A[i] = 0;
}
