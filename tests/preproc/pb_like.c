/* pb_like.c: a complete PolyBench-style program written for polyfold's
   tests. Arrays reach the kernel through POLYBENCH_2D/1D prototypes, loop
   bounds are _PB_N/_PB_M, constants SCALAR_VAL, the element type
   DATA_TYPE; sizes come from the header's SMALL_DATASET branch. The kernel
   has a temporary declared plainly (acc, folded), one declared through a
   function-like macro (w: its declarator is not the user's text, so it
   keeps its layout) and a chained assignment into temporaries (t, u).
   Built with -I grammar-tests/include -DSMALL_DATASET
   -DPOLYBENCH_USE_SCALAR_LB. */
#include <stdio.h>
#include <pbstyle.h>
#include <pb_kernel.h>

#define LOCAL_1D(v, d) v[d]

static void kernel_rows(int n, int m,
                        DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                        DATA_TYPE POLYBENCH_1D(out, N, n))
{
  int i, j;
  DATA_TYPE acc[N][M];
  DATA_TYPE LOCAL_1D(w, M);
  DATA_TYPE t[N], u[N];
#pragma scop
  for (i = 0; i < _PB_N; i++) {
    acc[i][0] = A[i][0];
    for (j = 1; j < _PB_M; j++)
      acc[i][j] = acc[i][j - 1] + A[i][j] * SCALAR_VAL(0.5);
    for (j = 0; j < _PB_M; j++)
      w[j] = acc[i][j] * 2;
    t[i] = u[i] = w[_PB_M - 1] + acc[i][_PB_M - 1];
    out[i] = t[i] - u[i] * SCALAR_VAL(0.25);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][M];
  static DATA_TYPE out[N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (DATA_TYPE) ((i * 7 + j * 3) % 11) / 4;
  kernel_rows(N, M, A, out);
  for (int i = 0; i < N; i++)
    printf("%d %.6f\n", i, (double) out[i]);
  return 0;
}
