/* `N / 2` with a known N is folded to 32 in a subscript of an array the
   SCoP writes: the model is exact for N = 64 only, and says so (a mapping
   is then certified for the known values and pinned). In the loop bound,
   `N / 2` is a quotient, modelled for every N. */
#ifndef N
#define N 64
#endif

void f(double s[N], double out[N])
{
  for (int i = N / 2; i < N; i++)
    out[i - N / 2] = s[i] - s[i - 1];
}
