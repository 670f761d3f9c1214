#define N 16
void f(const int in[N], int out[N])
{
  int i, j;
  int tmp[N];
produce:
  for (i = 0; i < N; i++)
    tmp[i] = in[i] + 3;
  consume: for (i = 0; i < N; i++) {
    inner: for (j = 0; j < 2; j++)
      step: out[i] = tmp[i] * 2 + j;
  }
}
void g(const int in[N], int out[N], int t)
{
  int i;
again:
  for (i = 0; i < N; i++)
    out[i] = in[i] + t;
  for (i = 0; i < N; i++) {
    out[i] = out[i] * 2;
    back: out[i] = out[i] + 1;
  }
  if (t-- > 0)
    goto again;
  if (t < -5)
    goto back;
}
