/* issue 14, class 3: a modulus `N` with `#define N M+2` printed bare gives
 * `q[i % M+2]`, i.e. `(i % 3) + 2`: wrong sums, no sanitizer error. */
#include <stdio.h>
#define M 3
#define N M+2
double w[N];
int main(void) {
  double q[N + 30];
  double s = 0;
  for (int i = 0; i < N + 30; i++) {
    q[i] = i * 1.5;
    if (i >= N - 1)
      s += q[i - (N - 1)] * i + w[0];
  }
  printf("%f\n", s);
  return 0;
}
