/* issue 14, class 6: `double z[n]` used on `0..n-2` must not become
 * `double z[n - 1]` (a zero-length VLA, undefined, when called with n = 1). */
#include <stdio.h>
static double kernel(int n, double a[n]) {
  double z[n];
  double s = 0.0;
  for (int i = 0; i < n - 1; i++)
    z[i] = a[i + 1] - a[i];
  for (int i = 0; i < n - 1; i++)
    s += z[i] * z[i];
  return s;
}
int main(void) {
  double a[64];
  for (int i = 0; i < 64; i++)
    a[i] = (i * 7 % 11) * 0.25;
  printf("%f %f %f %f\n", kernel(64, a), kernel(3, a), kernel(2, a), kernel(1, a));
  return 0;
}
