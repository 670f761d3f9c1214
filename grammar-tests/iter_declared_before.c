void f(int n, double A[100][100])
{
  int i;
  int j;
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      A[i][j] = A[j][i];
}
