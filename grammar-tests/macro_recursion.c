/* Self-referential macros must not send the expansion into a loop. */
#define A B
#define B A
#define F(x) F(x)

void f(double X[10], double Y[10], double Z[10])
{
  for (int i = 0; i < A; i++)
    X[i] = 0;
  for (int i = 0; i < 10; i++)
    Y[i] = F(i);
  for (int i = 0; i < 10; i++)
    Z[F(i)] = 0;
}
