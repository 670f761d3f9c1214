/* An #if polyfold cannot evaluate (a function-like macro in the
   condition): a warning, the macros under it are unknown, the run
   succeeds. */
#define F(x) x
#if F(1)
# define N 10
#else
# define N 20
#endif
void f(double A[100]) {
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
