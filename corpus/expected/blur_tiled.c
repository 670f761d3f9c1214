/* blur_tiled.c — tiled two-stage blur, seed 000 (Bhaskaracharya, Bondhugula,
 * Cohen, "SMO", POPL 2016) section 5.1, Figure 6(c), Table 1 ("blur-tiled").
 *
 * The figure's code is not in the extracted text; this is a reconstruction
 * from section 5.1 and from SMO's published conflict specification
 * (reference/smo/inter-array/blur-tiled.smo.input):
 *  - tiles (ty, tx) of B x B; inside a tile the column loop x is outer;
 *    S0 (ty, tx, x, y) computes the horizontal blur blurx of a whole column
 *    (y = 0..B-1), then S1 (ty, tx, x, y) the vertical blur of that column
 *    (schedules (ty, tx, x, 0, y) and (ty, tx, x, 1, y));
 *  - S1 at y reads blurx at y-2, y-1, y (so blurx[..][y] is last read
 *    inside the tile by S1 at y+2, as in the specification);
 *  - the top two rows of each blurx tile (y = B-2, B-1) are live-out of
 *    the tile: the tile below (ty+1, tx) reads them for its first two
 *    output rows (the statements guarded by y == 0 / y == 1, ty >= 1).
 * blurx is indexed by the iteration vector, blurx[ty][tx][x][y], as the
 * paper's totally expanded A_0[ty, tx, x, y]; the vertical blur goes to the
 * external output blury (all its values are live-out).
 *
 * Temporary: blurx[NT][NT][B][B] (B^2 = 64 cells per tile, 1024 in all).
 * Target (Table 1): per tile B^2 -> 3B - 2 = 22, blurx[ty][tx][(y - 2x) % (3B - 2)]
 * (live: the current column, B values, plus two live-out values of each
 * earlier column: B + 2(B - 1) = 3B - 2 at the last column, which is also
 * the max-live bound per tile). External: in (input), blury (output).
 */
#include <stdio.h>

/* The SCoP markers are for polyfold; keep -Wall -Werror builds quiet about them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
/* Keep a*b+c unfused (no FMA contraction), so the printed checksums are the same with every compiler. */
#pragma STDC FP_CONTRACT OFF

#define B 8
#define NT 4

static void blur_tiled_kernel(double in[NT * B][NT * B + 2], double blury[NT * B][NT * B])
{
    int ty, tx, x, y;
    /* polyfold: blurx[ty][tx][x][y] -> blurx[ty % 2][tx][(y + 3 * B - 2 * x - 2) % (3 * B - 2)] */
    double blurx[2][NT][3 * B - 2];

#pragma scop
    for (ty = 0; ty < NT; ty++)
        for (tx = 0; tx < NT; tx++)
            for (x = 0; x < B; x++) {
                for (y = 0; y < B; y++)
                    blurx[ty % 2][tx][(y + 3 * B - 2 * x - 2) % (3 * B - 2)] =
                        (in[ty * B + y][tx * B + x] + in[ty * B + y][tx * B + x + 1] +
                         in[ty * B + y][tx * B + x + 2]) / 3.0;
                for (y = 0; y < B; y++) {
                    if (y >= 2)
                        blury[ty * B + y][tx * B + x] =
                            (blurx[ty % 2][tx][(y + 3 * B - 2 * x - 4) % (3 * B - 2)] +
                             blurx[ty % 2][tx][(y + 3 * B - 2 * x - 3) % (3 * B - 2)] +
                             blurx[ty % 2][tx][(y + 3 * B - 2 * x - 2) % (3 * B - 2)]) / 3.0;
                    if (y == 1 && ty >= 1)
                        blury[ty * B + y][tx * B + x] =
                            (blurx[(ty - 1) % 2][tx][(4 * B - 2 * x - 3) % (3 * B - 2)] +
                             blurx[ty % 2][tx][(3 * B - 2 * x - 2) % (3 * B - 2)] +
                             blurx[ty % 2][tx][(3 * B - 2 * x - 1) % (3 * B - 2)]) / 3.0;
                    if (y == 0 && ty >= 1)
                        blury[ty * B + y][tx * B + x] =
                            (blurx[(ty - 1) % 2][tx][(4 * B - 2 * x - 4) % (3 * B - 2)] +
                             blurx[(ty - 1) % 2][tx][(4 * B - 2 * x - 3) % (3 * B - 2)] +
                             blurx[ty % 2][tx][(3 * B - 2 * x - 2) % (3 * B - 2)]) / 3.0;
                }
            }
#pragma endscop
}

int main(void)
{
    static double in[NT * B][NT * B + 2];
    static double blury[NT * B][NT * B];
    int row, col;
    double total = 0.0, weighted = 0.0;

    for (row = 0; row < NT * B; row++)
        for (col = 0; col < NT * B + 2; col++)
            in[row][col] = (double)((row * 37 + col * 11 + row * col) % 53);
    for (row = 0; row < NT * B; row++)
        for (col = 0; col < NT * B; col++)
            blury[row][col] = 0.0;

    blur_tiled_kernel(in, blury);

    for (row = 0; row < NT * B; row++)
        for (col = 0; col < NT * B; col++) {
            total += blury[row][col];
            weighted += (double)((row * 5 + col) % 11 + 1) * blury[row][col];
        }
    printf("blur_tiled B=%d NT=%d\n", B, NT);
    printf("blury sum %.9e weighted %.9e\n", total, weighted);
    printf("blury[2][0] %.9e blury[B][B] %.9e blury[last][last] %.9e\n", blury[2][0], blury[B][B],
           blury[NT * B - 1][NT * B - 1]);
    return 0;
}
