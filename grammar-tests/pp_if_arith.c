// polyfold-args: -D SIZE=3
/* #if with defined(), arithmetic and comparisons; #elif and #else; #undef;
   an unknown name is 0. */
#define TWICE (SIZE * 2)
#if TWICE > 5 && defined(SIZE) && !defined NOT_THERE && NOT_THERE + 1 == 1
#define N 7
#elif SIZE == 3
#define N 8
#else
#define N 9
#endif
#define K 1
#undef K
#if defined(K) || (-7 / 2 != -3) || (1 << 3) != 8
#define N 99
#endif

void f(double A[N])
{
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
