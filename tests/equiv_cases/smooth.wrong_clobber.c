/* smooth, y and the dead z merged into one buffer of two cells: y[i] ->
 * buf[i % 2], z[i] -> buf[(i + 1) % 2]. WRONG: the dead write of z[i]
 * lands on the cell that still holds the live y[i - 1], so out[i] reads
 * 2 x[i] in place of y[i - 1]. */
#include <stdio.h>

#define N 24

void smooth(const double x[N], double out[N])
{
    double buf[2];
    int i;

    for (i = 0; i < N; i++) {
        buf[i % 2] = 0.5 * x[i] + 0.25;
        buf[(i + 1) % 2] = 2.0 * x[i];
        if (i >= 1)
            out[i] = buf[i % 2] - buf[(i + 1) % 2];
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
