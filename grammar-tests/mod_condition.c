/* `%` by a constant in a condition is quasi-affine: an existential e0 with
   i = 2e0 (C's remainder; i >= 0 here, so the piece for a negative i is
   empty and dropped). */
#define N 10

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    if (i % 2 == 0)
      A[i] = 0;
}
