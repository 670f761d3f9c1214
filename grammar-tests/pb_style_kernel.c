// polyfold-args: -I grammar-tests/include -D SMALL_DATASET
/* A PolyBench-style kernel: arrays declared through POLYBENCH_2D/1D in the
   prototype, _PB_ bounds, SCALAR_VAL, DATA_TYPE; sizes from the header's
   #ifdef SMALL_DATASET branch (N = 20, M = 12). */
#include <stdio.h>
#include <pbstyle.h>
#include "include/pb_kernel.h"

static void kernel_rowsum(int n, int m,
                          DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                          DATA_TYPE POLYBENCH_1D(s, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < _PB_N; i++) {
    s[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_M; j++)
      s[i] += A[i][j] * SCALAR_VAL(0.5);
  }
#pragma endscop
}
