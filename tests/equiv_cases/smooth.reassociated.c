/* smooth with out[i] computed as -(y[i - 1] - y[i]): equal in real
 * arithmetic (and here in IEEE too), but a different expression. equiv
 * treats operators as uninterpreted: it reports a difference (a documented
 * limitation, not a wrong program). */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double y[N];
    int i;

    for (i = 0; i < N; i++) {
        y[i] = 0.5 * x[i] + 0.25;
        if (i >= 1)
            out[i] = -(y[i - 1] - y[i]);
    }
}

int main(void)
{
    double x[N], out[N];
    int i;

    for (i = 0; i < N; i++) {
        x[i] = (double)((i * 7 + 3) % 11) - 4.5;
        out[i] = -1.0;
    }
    smooth(x, out);
    for (i = 0; i < N; i++)
        printf("%d %.17g\n", i, out[i]);
    return 0;
}
