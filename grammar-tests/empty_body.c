/* A loop without statements gives no SCoP; the second loop does. */
void f(int n, double A[100])
{
  for (int i = 0; i < n; i++)
    ;
  for (int i = 0; i < n; i++) {
  }
  for (int i = 0; i < n; i++)
    A[i] = 0;
}
