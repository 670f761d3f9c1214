#define N 10
#define M (N + 2)
#define DATA_TYPE double

void f(DATA_TYPE A[M])
{
  for (int i = 0; i < M; i++)
    A[i] = N;
}
