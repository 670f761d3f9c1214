#define N 32

double dot(double x[N], double y[N])
{
  double acc;
  double t;
  acc = 0.0;
  for (int i = 0; i < N; i++) {
    t = x[i] * y[i];
    acc = acc + t;
  }
  return acc;
}
