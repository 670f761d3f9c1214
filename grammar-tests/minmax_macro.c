#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define N 100
#define B 8

void tile(double A[N])
{
  for (int t = 0; t < N; t += B)
    for (int i = MAX(t, 1); i < MIN(t + B, N - 1); i++)
      A[i] = A[i - 1] + A[i + 1];
}
