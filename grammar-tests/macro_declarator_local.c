/* A local array declared through a function-like macro: the declarator is
   the macro's text, so the array keeps its layout (note PF036); the one
   declared plainly (u) folds to a scalar. */
#define N 32
#define DECL_1D(v, d) v[d]
double f(double A[N]) {
  double DECL_1D(t, N);
  double u[N];
  double s = 0;
  for (int i = 0; i < N; i++) {
    t[i] = A[i] * 2;
    u[i] = t[i] + 1;
    s += u[i];
  }
  return s;
}
