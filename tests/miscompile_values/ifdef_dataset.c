/* issue 14 regression (see tests/miscompile_values.rs). */
#include <stdio.h>
#ifndef SMALL_DATASET
#define N 64
#define H 16
#else
#define N 20
#define H 5
#endif
static double in[N], out[N];
int main(void) {
  double s[N];
  for (int i = 0; i < N; i++) in[i] = i * 0.5 + (i % 7);
  for (int i = 0; i < N; i++) {
    s[i] = in[i] * 2.0;
    if (i >= H)
      out[i] = s[i] - s[i - H];
  }
  double sum = 0;
  for (int i = H; i < N; i++) sum += out[i] * (i + 1);
  printf("%.6f\n", sum);
  return 0;
}
