void f(unsigned n, double A[100])
{
  for (unsigned i = 0; i < n; i++)
    A[i] = 0;
}
