/* Attribute and qualifier macros in declarations: an unused parameter,
 * an aligned local array, an empty macro standing for a qualifier, and a
 * function declared through `STATIC_INLINE`. The scratch `row` is
 * rewritten for every `r`: it keeps one row. */
#include <stdio.h>

#define UNUSED __attribute__((unused))
#define ALIGNED(n) __attribute__((aligned(n)))
#define STATIC_INLINE static inline
#define CONSTVAR
#define H 16
#define W 33

static int img[H][W];
static long out[H];

STATIC_INLINE int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static void rows(int UNUSED flags, int CONSTVAR gain)
{
    int ALIGNED(16) row[H][W];
    int r, c;
    for (r = 0; r < H; r++) {
        for (c = 0; c < W; c++)
            row[r][c] = clampi(img[r][c] * gain - 40, 0, 255);
        out[r] = 0;
        for (c = 1; c < W; c++)
            out[r] = out[r] * 3 + row[r][c] - row[r][c - 1];
    }
}

int main(void)
{
    int r, c;
    long s = 0;
    for (r = 0; r < H; r++)
        for (c = 0; c < W; c++)
            img[r][c] = (r * 7 + c * 13) % 64;
    rows(0, 3);
    for (r = 0; r < H; r++)
        s = (s * 5 + out[r]) % 1000000007;
    printf("%ld\n", s);
    return 0;
}
