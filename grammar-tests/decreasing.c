#define N 50

void back(double x[N], double b[N])
{
  int i;
  for (i = N - 1; i >= 0; i--)
    x[i] = b[i] + x[i];
}
