void f(int n, double *p)
{
  for (int i = 0; i < n; i++)
    p[i] = 0;
}
