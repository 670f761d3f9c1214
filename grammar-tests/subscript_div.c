/* `/` and `%` by a constant in a subscript: each quotient is a dimension
   of the statement after its loops (q0 = i / 2 with C's truncation; i >= 0
   here, so the piece for a negative i is empty and dropped), and the
   subscript is affine in it: `i % 2` is `i - 2q`. A divisor that is a
   #define with a known value is that number. */
#define N 10

void f(double A[N], double B[2 * N], double C[2])
{
  for (int i = 0; i < 2 * N; i++) {
    A[i / 2] = B[i];
    C[(i + 1) % 2] = B[i % (N - 8)];
  }
}
