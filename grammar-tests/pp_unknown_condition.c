/* A condition polyfold cannot know (a name the compiler may
   predefine): the macros defined under it have no value, the functions
   under it are not analysed. */
#if __GNUC__ >= 4
#define N 10
#else
#define N 20
#endif

#ifdef _OPENMP
void g(double B[30])
{
  for (int i = 0; i < 30; i++)
    B[i] = 1;
}
#endif

void f(double A[30])
{
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
