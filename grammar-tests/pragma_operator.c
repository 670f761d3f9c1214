#define N 64
#define VECTOR _Pragma("omp simd")

_Pragma("GCC optimize(\"O3\")")
void f(double a[N], double b[N])
{
  _Pragma("omp parallel for")
  for (int i = 0; i < N; i++)
    a[i] = b[i] * 0.5;
  VECTOR
  for (int i = 1; i < N; i++)
    b[i] = a[i] + a[i - 1];
  for (int i = 0; i < N; i++)
    a[i] = 0.0;
}
