#define RESTRICT __restrict
#define UNUSED __attribute__((unused))
#define INLINE
#define N 20

static INLINE void f(int UNUSED flags, const double in[RESTRICT N], double out[RESTRICT N], double *RESTRICT p)
{
  for (int i = 1; i < N; i++)
    out[i] = in[i] - in[i - 1];
  *p = out[1];
}
