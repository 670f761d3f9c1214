/* The final value of a loop iterator is not modelled: a read of it after
   its loop is rejected (inside one nest) or splits the run (at top level). */
#define N 10

void f(double A[N], double B[N], int last[N])
{
  int i, j;
#pragma scop
  for (j = 0; j < N; j++) {
    for (i = 0; i < j; i++)
      A[i] = B[i];
    last[j] = i;
  }
#pragma endscop
}

void g(double A[N], int x[1])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = 0;
  x[0] = i;
  for (i = 0; i < N; i++)
    A[i] = A[i] + x[0];
#pragma endscop
}
