#define K 32
void f(int n, const int h[K], const int x[100], int y[100])
{
  int j, k;
  for (j = 0; j < n; j++) {
    y[j] = 0;
    for (k = 0; ((k < K) & ((j - k) >= 0)); k++)
      y[j] = y[j] + h[k] * x[j - k];
    if ((j > 2) | !(j < 5) & (j != 7))
      y[j] = -y[j];
  }
}
void g(int n, int m, int y[100])
{
  int k;
  for (k = 0; (k < n) & (m & 1); k++)
    y[k] = 0;
  for (k = 0; (k < n) & (m | 4); k++)
    y[k] = 1;
}
