/* A kernel reads a global table and writes through a parameter; one call
   passes the global itself. */
#include <stdio.h>
#define N 40
static double table[N];
static void blend(double out[N])
{
    double t[N];
    int i;
    for (i = 1; i < N; i++)
        t[i] = table[i] + table[i - 1];
    for (i = 1; i < N; i++)
        out[i] = t[i] * 0.25;
}
int main(void)
{
    double s = 0.0;
    double y[N];
    for (int i = 0; i < N; i++)
        table[i] = (i * 5) % 9;
    blend(y);
    blend(table);
    for (int i = 0; i < N; i++)
        s += (table[i] + y[i]) * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
