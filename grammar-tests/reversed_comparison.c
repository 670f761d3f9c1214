/* The bound may be written on the left: `n > i` and `n >= i`. */
void f(int n, double A[200], double B[200])
{
  for (int i = 0; n > i; ++i)
    A[i] = 0;
  for (int i = 0; n - 1 >= i; i += 1)
    B[i] = 1;
}
