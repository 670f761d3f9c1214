/* `%` in a condition with a #define size (tests/quasi_affine.rs): `t[i]`
   is read at i, and at i + 1 when i + 1 is odd: two cells, certified for N = 100
   (the dataflow through the existential is not exact for every N). */
#include <stdio.h>

#ifndef N
#define N 100
#endif

static void kernel(double in[N], double out[N])
{
  double t[N];
  for (int i = 0; i < N; i++) {
    t[i] = in[i] * 2.0;
    if (i % 2 == 1)
      out[i] = t[i] + t[i - 1];
  }
}

int main(void)
{
  static double in[N], out[N];
  double sum = 0;
  for (int i = 0; i < N; i++)
    in[i] = i * 0.25 + (i % 5);
  kernel(in, out);
  for (int i = 1; i < N; i += 2)
    sum += out[i] * (i + 1);
  printf("%.6f\n", sum);
  return 0;
}
