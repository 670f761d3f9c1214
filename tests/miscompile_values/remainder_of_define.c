/* issue 14 regression (see tests/miscompile_values.rs). */
#include <stdio.h>
#ifndef N
#define N 64
#endif
static double in[N], out[N];
int main(void) {
  double s[N];
  for (int i = 0; i < N; i++) in[i] = i * 0.25 + (i % 5);
  for (int i = 0; i < N; i++) {
    s[i] = in[i] * 3.0;
    if (i >= N % 40)
      out[i] = s[i] + s[i - N % 40];
  }
  double sum = 0;
  for (int i = 0; i < N; i++) sum += out[i] * (i + 1);
  printf("%.6f\n", sum);
  return 0;
}
