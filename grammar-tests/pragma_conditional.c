#ifndef USE_OMP
#define USE_OMP 0
#endif

void f(int n, double a[n], double b[n])
{
#ifdef _OPENMP
#pragma omp parallel for
#endif
  for (int i = 0; i < n; i++)
    a[i] = b[i] + 1.0;
#if USE_OMP
#pragma omp parallel for
#elif defined(__GNUC__)
#pragma GCC ivdep
#endif
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 2.0;
  for (int t = 0; t < 4; t++) {
#if defined(_OPENMP)
#pragma omp for simd
#endif
    for (int i = 1; i < n; i++)
      a[i] = a[i] + b[i - 1];
  }
}
