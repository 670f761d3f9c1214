/* A parameter read on a right-hand side is not an array access. */
void f(int n, double A[100])
{
  for (int i = 0; i < n; i++)
    A[i] = n - i;
}
