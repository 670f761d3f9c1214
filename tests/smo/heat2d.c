/* heat-2d with a double buffer (seed 000 Table 1, 2-d ping-pong): each
   time step computes `A` from the previous step's `B` (5-point stencil),
   then copies `A` back into `B`'s interior. SMO needs N^2 + 2N cells for
   both grids, the baseline 2N^2. */
#define T 3
#define N 6

double heat2d(void) {
  double A[N][N];
  double B[N + 2][N + 2];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        A[i][j] = (B[i][j + 1] + B[i + 1][j] + B[i + 1][j + 1] + B[i + 1][j + 2] +
                   B[i + 2][j + 1]) / 5.0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        B[i + 1][j + 1] = A[i][j];
  }
  return 0.0;
}
