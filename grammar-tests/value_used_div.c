/* `N / 2` with a known N is folded to 32: the model is exact for N = 64
   only, and says so (a mapping is then certified for the known values and
   pinned). */
#ifndef N
#define N 64
#endif

void f(double s[N], double out[N])
{
  for (int i = N / 2; i < N; i++)
    out[i] = s[i] - s[i - N / 2];
}
