/* Seven `!=` on one iterator: 2^7 conjunctions, of which all but two
 * hold a contradictory pair (`i <= 0` with `i >= 2`, ...) and are dropped
 * as they are built: the domain is i <= 0 or i >= 8 (i not in 1..7). */
#define N 100

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    if (i != 1 && i != 2 && i != 3 && i != 4 && i != 5 && i != 6 && i != 7)
      A[i] = 0;
}
