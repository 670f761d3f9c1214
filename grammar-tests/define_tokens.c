// polyfold-args: -D N=M+2 -D M=10 -D GONE -U GONE -D DATA_TYPE=float
/* -D with tokens: N is `M+2` (12, a compound macro), DATA_TYPE a type;
   -U cancels the -D GONE before it, so the #else branch is compiled. */
#ifdef GONE
# define K 1
#else
# define K 3
#endif
void f(DATA_TYPE A[N + K]) {
  for (int i = 0; i < N; i++)
    A[i + K] = A[i] * 2;
}
