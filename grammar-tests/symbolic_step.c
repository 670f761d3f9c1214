/* A step that is a variable is not affine: the outer loop is rejected and
   the inner loop is a SCoP in which `t` is a parameter. */
void f(int n, int b, double A[1000])
{
  for (int t = 0; t < n; t += b)
    for (int i = t; i < t + b && i < n; i++)
      A[i] = A[i] * 2;
}
