/* Loops written through a statement macro, as in many image-processing
 * code bases: `FOR(i, lo, hi)` expands to a `for` header. The scratch row
 * `tmp[r][...]` is rewritten in every iteration of `r`, so it folds to one
 * row; the `FOR` calls stay in the text (polyfold never rewrites a macro's
 * text, and never fuses or rotates loops whose header is one). */
#include <stdio.h>

#define ROWS 24
#define COLS 40
#define FOR(i, lo, hi) for (i = (lo); i < (hi); i++)
#define FOR_DOWN(i, hi, lo) for (i = (hi) - 1; i >= (lo); --i)

static unsigned char image[ROWS][COLS];
static int result[ROWS][COLS];

static void blur_rows(void)
{
    int tmp[ROWS][COLS];
    int r, c;
    FOR(r, 0, ROWS) {
        FOR(c, 0, COLS)
            tmp[r][c] = 3 * image[r][c] + 1;
        FOR_DOWN(c, COLS - 1, 1)
            result[r][c] = tmp[r][c - 1] + 2 * tmp[r][c] + tmp[r][c + 1];
        result[r][0] = tmp[r][0];
        result[r][COLS - 1] = tmp[r][COLS - 1];
    }
}

int main(void)
{
    int r, c;
    unsigned long sum = 0;
    FOR(r, 0, ROWS)
        FOR(c, 0, COLS)
            image[r][c] = (unsigned char)((r * 37 + c * 11) % 256);
    blur_rows();
    FOR(r, 0, ROWS)
        FOR(c, 0, COLS)
            sum = sum * 31 + (unsigned long)result[r][c];
    printf("%lu\n", sum);
    return 0;
}
