/* Issue 47: a linearised heap buffer `keep` that keeps its layout (it is
 * printed after the loops, outside the SCoP) is read in a loop that fusion
 * shifts by 2 to fold `tmp` to three rows: the row subscript of
 * `keep[y * w + x]` becomes `y - 2` inside the product, so it needs its
 * parentheses: `keep[(y - 2) * w + x]`, not `keep[y - 2 * w + x]`. */
#include <stdio.h>
#include <stdlib.h>
static float two(int h, int w, const float in[h + 2][w])
{
    float *keep = malloc(sizeof(float) * (h + 2) * w);
    float (*tmp)[w] = malloc((h + 2) * sizeof *tmp);
    float s = 0.0f;
    for (int y = 0; y < h + 2; y++)
        for (int x = 0; x < w; x++) {
            tmp[y][x] = in[y][x] * 2.0f;
            keep[y * w + x] = in[y][x] + 1.0f;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            s = s + tmp[y][x] + tmp[y + 2][x] * keep[y * w + x] - keep[(y + 1) * w + x];
    float r = s;
    for (int x = 0; x < w; x++)
        printf(" %g", keep[1 * w + x]);
    free(keep);
    free(tmp);
    return r;
}
int main(void)
{
    for (int h = 1; h < 6; h++)
        for (int w = 1; w < 5; w++) {
            float (*in)[w] = malloc((h + 2) * sizeof *in);
            for (int y = 0; y < h + 2; y++)
                for (int x = 0; x < w; x++)
                    in[y][x] = (float)((y * 3 + x * 7) % 5);
            printf("%g\n", two(h, w, in));
            free(in);
        }
    return 0;
}
