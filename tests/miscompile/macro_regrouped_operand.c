/* issue 14, class 3 (front end): `2 * D` with `#define D 8-4` is `2 * 8-4` = 12,
 * not 8; a model that reads `D` as one operand folds `q` to 9 cells while the
 * program reads 20 iterations back (wrong sum). The access must be rejected. */
#include <stdio.h>
#define D 8-4
int main(void) {
  double q[64];
  double s = 0;
  for (int i = 0; i < 64; i++) {
    q[i] = i * 1.5;
    if (i >= 20)
      s += q[i - 2 * D] * i;
  }
  printf("%f\n", s);
  return 0;
}
