/* Loop-free statements of a #pragma scop region cut off by a rejected
   statement are said to be left out (PF035), never dropped silently. */
#define N 16
void g(double *p);
void f(double a[N], double x) {
  double t, u;
#pragma scop
  for (int i = 0; i < N; i++)
    a[i] = x;
  g(a);
  t = x * 2;
  u = t + 1;
#pragma endscop
  a[0] = u;
}
