void f(double x, double A[100])
{
  for (int i = 0; i < x; i++)
    A[i] = 0;
}
