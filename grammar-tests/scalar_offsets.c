/* Issue 51: scalars assigned an affine value inside the SCoP and then used
   in subscripts, bounds and conditions later in the same block are read
   as that value (forward substitution): `row` is 5b, `row_up` 5b - 5, `lo`
   b + 1. Each statement that uses one also reads the scalar, and the
   assignments stay statements. `row` is still read as a value by `t`. */
#define W 5
void f(int M[W * W], int t[W])
{
  int a, b, row, row_up, lo;
#pragma scop
  for (b = 1; b < W; b++) {
    row = b * W;
    row_up = row - W;
    lo = b + 1;
    for (a = lo; a < W; a++) {
      M[row + a] = M[row_up + a] + 1;
      if (a > lo)
        t[a] = row;
    }
    M[row] = 0;
  }
#pragma endscop
}
