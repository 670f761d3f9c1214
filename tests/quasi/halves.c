/* Quasi-affine bounds and conditions (tests/quasi_affine.rs): `u` lives
   two iterations under a bound `n / 2`; `t` is read one iteration later,
   on odd iterations only (`i % 2 == 1`). Sizes are function parameters,
   run for n = 1, 38, 75, ... 297. */
#include <stdio.h>

static void odd_pairs(int n, double in[n], double out[n])
{
  double t[n];
  for (int i = 0; i < n; i++) {
    t[i] = in[i] * 2.0;
    if (i % 2 == 1)
      out[i] = t[i] + t[i - 1];
  }
}

static void halves(int n, double in[n], double out[n])
{
  double u[n];
  for (int i = 0; i < n / 2; i++) {
    u[i] = in[2 * i] + in[2 * i + 1];
    if (i > 0)
      out[i] = u[i] - u[i - 1];
  }
}

int main(void)
{
  static double in[300], out[300];
  double sum = 0;
  for (int i = 0; i < 300; i++)
    in[i] = i * 0.5 + (i % 7);
  for (int n = 1; n <= 300; n += 37) {
    for (int i = 0; i < 300; i++)
      out[i] = 0;
    odd_pairs(n, in, out);
    for (int i = 0; i < n; i++)
      sum += out[i] * (i + 1);
    halves(n, in, out);
    for (int i = 0; i < n; i++)
      sum += out[i] * (i + 2);
  }
  printf("%.6f\n", sum);
  return 0;
}
