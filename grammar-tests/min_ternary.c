void f(int n, int m, double A[100])
{
  for (int i = 0; i < (n < m ? n : m); i++)
    A[i] = 1.0;
}
