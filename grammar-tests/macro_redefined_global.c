#define N 8
static double G[N];
#undef N
#define N 6
static double H[N];

void f(void)
{
  for (int i = 1; i < N; i++)
    G[i] = G[i - 1] + 1.0;
}

void g(void)
{
  for (int i = 1; i < N; i++)
    H[i] = H[i - 1] + 1.0;
}
