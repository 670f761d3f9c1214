/* Issue 47: temporaries where benchmark code keeps them. `main` declares
 * and allocates every array through macros of the PolyBench kind and
 * passes them to `static` kernels; `tmp` and `row` are written before
 * they are read in each call and never read by `main`, so they shrink
 * where `main` allocates them: `tmp` to one cell, `row` to one row. */
#include <stdio.h>
#include <stdlib.h>

#define N 40
#define M 30
#define PAD 0
#define ARRAY_1D(v, d1, dd1) v[d1 + PAD]
#define ARRAY_2D(v, d1, d2, dd1, dd2) v[d1 + PAD][d2 + PAD]
#define DECL_1D(v, type, d1, dd1) \
  type (*v)[d1 + PAD]; \
  v = (type(*)[d1 + PAD])malloc((d1 + PAD) * sizeof(type));
#define DECL_2D(v, type, d1, d2, dd1, dd2) \
  type (*v)[d1 + PAD][d2 + PAD]; \
  v = (type(*)[d1 + PAD][d2 + PAD])malloc((d1 + PAD) * (d2 + PAD) * sizeof(type));
#define ARR(x) *x
#define FREE_ARRAY(x) free((void*)x);

static void kernel_atax(int n, int m, double ARRAY_2D(A, N, M, n, m),
                        double ARRAY_1D(x, M, m), double ARRAY_1D(y, M, m),
                        double ARRAY_1D(tmp, N, n))
{
  int i, j;
  for (j = 0; j < m; j++)
    y[j] = 0.0;
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < m; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < m; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

static void kernel_rows(int n, int m, double ARRAY_2D(A, N, M, n, m),
                        double ARRAY_2D(row, N, M, n, m), double ARRAY_1D(s, N, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      row[i][j] = A[i][j] * 2.0 + j;
    s[i] = 0.0;
    for (j = 0; j < m; j++)
      s[i] = s[i] + row[i][j] * row[i][m - 1 - j];
  }
}

int main(void)
{
  int i, j, k;
  DECL_2D(A, double, N, M, n, m);
  DECL_1D(x, double, M, m);
  DECL_1D(y, double, M, m);
  DECL_1D(tmp, double, N, n);
  DECL_2D(row, double, N, M, n, m);
  DECL_1D(s, double, N, n);
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      (*A)[i][j] = (double)((i * j + 3) % 11) / 7.0;
  for (j = 0; j < M; j++)
    (*x)[j] = 1.0 + j / 5.0;
  /* Every size from 1 by 1 up to the full arrays. */
  for (k = 1; k <= N; k += 13) {
    int n = k, m = k < M ? k : M;
    kernel_atax(n, m, ARR(A), ARR(x), ARR(y), ARR(tmp));
    kernel_rows(n, m, ARR(A), ARR(row), ARR(s));
    for (j = 0; j < m; j++)
      printf("%.6f\n", (*y)[j]);
    for (i = 0; i < n; i++)
      printf("%.6f\n", (*s)[i]);
  }
  FREE_ARRAY(A);
  FREE_ARRAY(x);
  FREE_ARRAY(y);
  FREE_ARRAY(tmp);
  FREE_ARRAY(row);
  FREE_ARRAY(s);
  return 0;
}
