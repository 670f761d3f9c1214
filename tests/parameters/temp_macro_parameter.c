/* `--temp kernel:t` on a parameter declared through a macro, in a
 * function that is not `static` (its callers are not all known): the
 * declarator stays as the macro spells it, the accesses change. */
#include <stdio.h>

#define N 50
#define ARRAY_1D(v, d1, dd1) v[d1]

void kernel(int n, double ARRAY_1D(t, N, n), double out[N])
{
  int i;
  for (i = 0; i < n; i++) {
    t[i] = i * 0.5 + 1.0;
    out[i] = t[i] * t[i];
  }
}

int main(void)
{
  double t[N], out[N];
  int n;
  for (n = 1; n <= N; n += 7) {
    kernel(n, t, out);
    printf("%.3f\n", out[n - 1]);
  }
  return 0;
}
