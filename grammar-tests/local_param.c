/* A local integer read but never written in the SCoP is a parameter. */
double A[100][100];

void f(void)
{
  int n = 64;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n - i; j++)
      A[i][j] = 1;
}
