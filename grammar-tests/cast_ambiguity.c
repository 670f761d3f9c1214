/* `(n) - 1` and `(c) * B[...]` look like casts to tree-sitter; `n` and `c`
   are variables, so they are rebuilt as a subtraction and a product. */
void f(int n, double c, double A[100], double B[100])
{
  for (int i = 0; i < (n) - 1; i++)
    A[i] = (c) * B[(i) + 1] - (c) -1;
}
