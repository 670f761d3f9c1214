/* Found by the issue 14 audit: `SRC` is an object-like macro whose body
 * reads the temporary `un`. The read was invisible to the model (no use in
 * the text): `un` was folded to `un[i % N]` while `SRC` still read `un[i]`
 * out of bounds (default mode), or merged away (--inter-array: compile
 * error). A variable named in a macro body now keeps its layout.
 */
#include <stdio.h>
#define N 16
#define T 5
#define SRC un[i] * 2.0
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
        for (i = 1; i <= N; i++) u[i] = SRC;
        probe += u[N / 2];
    }
    printf("%.4f\n", probe);
    return 0;
}
