// polyfold-args: -D SMALL_DATASET
/* Sizes come from the active branch: SMALL_DATASET is defined (to 1) on
   the command line, so N is 10 and M is 4, not the last #define in the
   text. */
#ifdef SMALL_DATASET
#define N 10
#define M 4
#else
#define N 100
#define M 40
#endif

void f(double A[N][M])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = 0;
}
