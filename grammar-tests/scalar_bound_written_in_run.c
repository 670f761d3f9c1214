/* Inferred mode: `n = 5` writes a scalar used as a bound afterwards, so it
   stays out of the SCoP of the loop (the run is split silently). */
void f(double A[100])
{
  int n;
  n = 5;
  for (int i = 0; i < n; i++)
    A[i] = 0;
}
