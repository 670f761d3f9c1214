/* issue 14, class 6: `double P[w]` used on `1..w-2` must not become
 * `double P[w - 2]` (non-positive VLA extent when called with w = 2 or 1). */
#include <stdio.h>
static double kernel(int w) {
  double P[w];
  double s = 0.0;
  for (int i = 1; i <= w - 2; i++)
    P[i] = i * 0.5;
  for (int i = 1; i <= w - 2; i++)
    s += P[i];
  return s;
}
int main(void) {
  printf("%f %f %f %f\n", kernel(64), kernel(3), kernel(2), kernel(1));
  return 0;
}
