/* heat-1d with a double buffer, as in seed 000 (SMO) Table 1: each time
   step computes `A` from the previous step's `B` (3-point stencil), then
   copies `A` back into `B`. Both grids are temporaries here (their values
   at the start are read as live-in), so the global conflict set holds the
   two statements' values; the SMO path needs N + 1 cells for both. */
#define T 4
#define N 8

double heat1d(void) {
  double A[N];
  double B[N + 2];
  double out = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N; i++)
      A[i] = (B[i] + B[i + 1] + B[i + 2]) / 3.0;
    for (int i = 0; i < N; i++)
      B[i + 1] = A[i];
  }
  return out;
}
