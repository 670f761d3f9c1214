int size = 10;
double A[100];

void f(void)
{
  for (int i = 0; i < size; i++)
    A[i] = 0;
}
