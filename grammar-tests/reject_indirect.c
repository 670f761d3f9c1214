#define N 10

void gather(double A[N], int idx[N], double out[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    out[i] = A[idx[i]];
#pragma endscop
}
