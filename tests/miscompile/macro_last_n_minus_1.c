/* issue 14, class 3: `p[LAST]` with `#define LAST N-1` folded to `p[LAST % 2]`
 * is `p[N-1 % 2]` = `p[15]` of `p[2]`; it must print `p[(LAST) % 2]`, and the
 * pinning `_Static_assert` must say `(LAST) == 15`. */
#include <stdio.h>
#define N 16
#define LAST N-1
int main(void) {
  double p[N];
  double out;
  p[0] = 1.0;
  p[1] = 1.0;
  for (int i = 2; i < N; i++)
    p[i] = p[i - 1] + 0.5 * p[i - 2];
  out = p[LAST];
  printf("%f\n", out);
  return 0;
}
