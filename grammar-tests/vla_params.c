void scale(int n, int m, double A[n][m], double alpha)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = alpha * A[i][j];
}
