/* Issue 14, class 1: a dead copy loop with braces and a `#pragma` that
 * applies to it: the pragma goes with the loop. Before the fix the braces
 * and the pragma stayed and the output did not compile. (`GCC unroll`: a
 * pragma that does not mark the loop parallel, which would keep the arrays.)
 */
#include <stdio.h>
#define N 16
#define T 5
int main(void) {
    double u[N + 2];
    double un[N + 2];
    double probe = 0.0;
    double in[N + 2];
    int t, i;
    for (i = 0; i < N + 2; i++) in[i] = (double)(i * i % 7);
    for (i = 0; i <= N + 1; i++) u[i] = in[i];
    for (t = 0; t < T; t++) {
        for (i = 1; i <= N; i++)
            un[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
        #pragma GCC unroll 4
        for (i = 1; i <= N; i++) { u[i] = un[i]; }
        probe += u[N / 2];
    }
    printf("%.4f\n", probe);
    return 0;
}
