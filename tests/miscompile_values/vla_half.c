/* issue 14 regression (see tests/miscompile_values.rs). */
#include <stdio.h>
static void kernel(int n, double in[n], double out[n]) {
  double t[n];
  for (int i = 0; i < n; i++) {
    t[i] = in[i] * 2.0;
    if (i >= n / 2)
      out[i] = t[i] - t[i - n / 2];
  }
}
int main(void) {
  static double in[200], out[200];
  for (int i = 0; i < 200; i++) in[i] = i * 0.5 + (i % 3);
  double sum = 0;
  kernel(64, in, out);
  for (int i = 32; i < 64; i++) sum += out[i] * (i + 1);
  kernel(200, in, out);
  for (int i = 100; i < 200; i++) sum += out[i] * (i + 1);
  printf("%.6f\n", sum);
  return 0;
}
