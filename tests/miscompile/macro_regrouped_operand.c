/* issue 14, class 3 (front end): `8 * N` with `#define N M+2` is `8 * M+2` = 26,
 * not 40; the model must not read `N` as one operand there (the loop is
 * rejected, the program stays as it is). */
#include <stdio.h>
#define M 3
#define N M+2
int main(void) {
  double q[8 * N];
  double s = 0;
  for (int i = 0; i < 8 * N; i++) {
    q[i] = i * 1.5;
    if (i >= N - 1)
      s += q[i - N + 1] * i;
  }
  printf("%f\n", s);
  return 0;
}
