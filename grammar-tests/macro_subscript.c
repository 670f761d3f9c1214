/* Function-like macros in subscripts, bounds and conditions are expanded. */
#define N 16
#define NEXT(i) ((i) + 1)
#define LAST (N - 1)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

void f(double A[N], double B[N])
{
  for (int i = 0; i < LAST; i++)
    if (IN_RANGE(i, 2, 10))
      B[i] = A[NEXT(i)];
}
