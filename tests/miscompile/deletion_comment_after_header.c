/* Issue 14, class 2: a `// comment` after the copy loop's header is trivia;
 * before the fix the deletion stopped at it and the orphaned `for` swallowed
 * the next statement (and a line of spaces was left behind).
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
        for (i = 1; i <= N; i++) // copy back
            u[i] = un[i];
        probe += u[N / 2];
    }
    printf("%.4f\n", probe);
    return 0;
}
