/* A chained assignment: one write per target, right to left (`b[i] = x`,
   then `a[i] = b[i]`); the statements of the region after it are kept. */
#define N 16
void f(double a[N], double b[N], double x, double y) {
  double t, u;
#pragma scop
  t = u = x * y;
  for (int i = 0; i < N; i++)
    a[i] = b[i] = t + u;
  u = 2.0;
  t += u;
#pragma endscop
  a[0] = t;
}
