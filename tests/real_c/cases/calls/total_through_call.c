/* A loop adds into a global; a later loop reads the sum through a call.
   Fused, the later loop would see partial sums. */
#include <stdio.h>
#define N 64
static double total;
static double get_total(void) { return total; }
static void kernel(const double in[N], double out[N])
{
    double t[N];
    int i;
    for (i = 0; i < N; i++) {
        t[i] = in[i] * 2.0;
        total = total + in[i];
    }
    for (i = 0; i < N; i++)
        out[i] = t[i] / get_total();
}
int main(void)
{
    double in[N], out[N];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        in[i] = i + 1;
    total = 1.0;
    kernel(in, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i + 1);
    printf("%.6f\n", s);
    return 0;
}
