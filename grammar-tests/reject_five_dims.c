void f(double A[2][2][2][2][2])
{
  for (int i = 0; i < 2; i++)
    A[i][i][i][i][i] = 0;
}
