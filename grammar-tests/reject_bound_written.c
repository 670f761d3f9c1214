void f(int n, double A[100])
{
  for (int i = 0; i < n; i++) {
    A[i] = 0;
    n--;
  }
}
