/* The facts recorded for the liveness classifier. */
#define N 8
double G[N];
static double S[N];

void use(double *p);

void f(double P[N])
{
  double L[N], T[N], E[N];
  static double Q[N];
  for (int i = 0; i < N; i++) {
    L[i] = P[i];
    T[i] = L[i] + G[i] + S[i];
    E[i] = T[i];
    Q[i] = E[i];
  }
  use(E);
  L[0] = 0;
}

/* A file-scope initialiser takes the address of G2. */
double G2[N];
double *alias = G2;

void h(void)
{
  for (int i = 0; i < N; i++)
    G2[i] = i;
}
