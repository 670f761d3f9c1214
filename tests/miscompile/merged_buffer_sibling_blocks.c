/* Issue 14, class 8: `row` and `col` are declared in sibling loop bodies
 * and merged by --inter-array; the buffer must be declared in a block that
 * encloses both. Before the fix it was declared in the first loop body and
 * the output did not compile.
 */
#include <stdio.h>
#define W 8
#define H 6
static unsigned kernel(unsigned img[H][W]) {
    unsigned sum = 0;
    int x, y;
    for (y = 0; y < H; y++) {
        unsigned row[W];
        for (x = 0; x < W; x++)
            row[x] = img[y][x] * 3u;
        for (x = 0; x < W; x++)
            sum += row[x] ^ row[W - 1 - x];
    }
    for (x = 0; x < W; x++) {
        unsigned col[H];
        for (y = 0; y < H; y++)
            col[y] = img[y][x] + 1u;
        for (y = 0; y < H; y++)
            sum += col[y] * col[H - 1 - y];
    }
    return sum;
}
int main(void) {
    unsigned img[H][W];
    int x, y;
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++)
            img[y][x] = (unsigned)(y * 31 + x * 7) % 256u;
    printf("%u\n", kernel(img));
    return 0;
}
