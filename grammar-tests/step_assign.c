void f(int n, double A[1000])
{
  int i;
  for (i = 0; i < n; i = i + 4)
    A[i] = A[i + 1];
}
