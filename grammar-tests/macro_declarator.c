/* A function-like macro in a parameter declaration: `A` is an array of
   extent N, `B` a 2-d array whose extents use the macro's own arithmetic. */
#define N 64
#define ARR_1D(var, dim) var[dim]
#define ARR_2D(var, d1, d2) var[d1][(d2) + 1]
void f(double ARR_1D(A, N), double ARR_2D(B, N, N)) {
  for (int i = 1; i < N; i++)
    A[i] = A[i - 1] + B[i][N];
}
