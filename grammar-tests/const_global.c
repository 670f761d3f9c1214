const int SIZE = 12;
double G[12];

void f(void)
{
  for (int i = 1; i < SIZE - 1; i++)
    G[i] = G[i - 1] + G[i + 1];
}
