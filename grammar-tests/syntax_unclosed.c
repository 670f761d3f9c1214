void f(double A[10])
{
  for (int i = 0; i < 10; i++)
    A[i] = (1 + 2;
}
