struct grid { double a[10]; };

void f(struct grid g)
{
  for (int i = 0; i < 10; i++)
    g.a[i] = 0;
}
