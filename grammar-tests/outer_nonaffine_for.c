/* The outer loop's bound is not affine; the inner nest is a SCoP in which
   the outer iterator is a parameter. */
void f(int n, double A[1000][100])
{
  for (int k = 1; k < n * n; k++)
    for (int i = 0; i < k; i++)
      A[k][i] = 0;
}
