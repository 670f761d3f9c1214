/* `%` by a variable in a subscript is not quasi-affine: the access is
   reported and its statement left out. */
void f(int n, int m, double A[n])
{
  for (int i = 0; i < n; i++)
    A[i % m] = 0;
}
