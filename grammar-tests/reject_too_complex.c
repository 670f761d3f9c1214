#define N 100

/* Seven `!=` on seven different forms: 2^7 = 128 disjuncts, none with a
 * contradictory pair, more than the 64 a condition may have. */
void f(double A[N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (i != 1 && j != 1 && i + j != 1 && i - j != 1 && i + 2 * j != 1 && 2 * i + j != 1 && i - 2 * j != 1)
        A[i] = 0;
}
