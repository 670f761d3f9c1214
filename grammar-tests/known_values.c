/* Products of a parameter with an iterator use the parameter's known value
   (from #define, -D or a const global) so that the access stays affine, and
   `/` and `%` between known numbers in a subscript are computed (C
   truncation). Extents and bounds that are affine keep their parameters
   symbolic, and so does the quotient `M / 2` of a bound (an existential
   with 2e0 <= M <= 2e0 + 1 for M >= 0). A value
   folded only into an array the SCoP reads and never writes (`tangent`)
   decides no dataflow: N is not a value the model depends on. */
#define N 6
#define m 4
#define n 4
#define M 32

void f(int tangent[(N + 1) * N], int sum_t[N][N], int D[(2 * m + 1) * (2 * n + 1) * M])
{
  for (int j = 0; j <= N - 1; j++) {
    sum_t[j][j] = tangent[(N + 1) * j];
    for (int i = j + 1; i <= N - 1; i++)
      sum_t[j][i] = sum_t[j][i - 1] + tangent[i + N * j];
  }
  for (int i = m; i < M / 2; i++)
    for (int k = i - m; k <= i + m; k++)
      D[(2 * n + 1) * k - (2 * n + 1) * i + (2 * m * n + m + n + 1)] = M % 5;
}

void g(int p, double A[100])
{
  for (int i = 0; i < 10; i++)
    A[p * i] = 0;
}
