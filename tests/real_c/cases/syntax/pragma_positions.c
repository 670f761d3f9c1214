/* `_Pragma` where C allows it: at file scope before a function (and its
 * name), in statement position between statements, and right before a
 * loop (a vectorisation hint). The file must parse; the hinted loop is
 * parallel, so its temporary keeps one cell per iteration, while the
 * temporary of the plain loops folds. */
#include <stdio.h>

#define N 100
#define SIMD _Pragma("GCC ivdep")

_Pragma("GCC diagnostic push")
_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")
static double weight(int k, int unused) { return 0.25 * k + 1.0; }
_Pragma("GCC diagnostic pop")

int main(void)
{
    double a[N], b[N], c[N];
    double t[N], u[N];
    double s = 0.0;
    int i;
    for (i = 0; i < N; i++)
        a[i] = weight(i % 11, 0);
    _Pragma("GCC ivdep")
    for (i = 0; i < N; i++) {
        t[i] = a[i] * 2.0;
        b[i] = t[i] + 1.0;
    }
    SIMD for (i = 0; i < N; i++)
        c[i] = b[i] - a[i];
    for (i = 0; i < N; i++)
        u[i] = c[i] * c[i];
    for (i = 1; i < N; i++)
        s += i * (u[i] - u[i - 1]);
    printf("%.9f\n", s);
    return 0;
}
