/* Issue 47: kernels that allocate their scratch buffers on the heap and
 * free them before returning. `t` (a pointer to VLA rows) holds one row at
 * a time (as does `r`, allocated as `sizeof(float[h][w])`), `u` (a
 * pointer to elements) one value at a time: both shrink at their
 * allocation's size. `acc` is indexed linearly (`acc[y * w + x]`)
 * and read right after it is written once the loops are fused: one cell.
 * `bx` is a linearised image read three rows at a time: three rows. `sh`
 * is indexed `y * w + (x + 1)` with `x + 1` up to `w`, past its row: its
 * column is not within the row, so it keeps its layout. Sizes run from
 * 1x1 to 200x301. */
#include <stdio.h>
#include <stdlib.h>

static float rows(int h, int w, const float in[h][w])
{
  float (*t)[w] = malloc(h * sizeof *t);
  float s = 0.0f;
  int y, x;
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++)
      t[y][x] = in[y][x] * 0.5f + (float)x;
    for (x = 0; x < w; x++)
      s = s + t[y][x] * t[y][w - 1 - x];
  }
  free(t);
  return s;
}

static float rows_sizeof(int h, int w, const float in[h][w])
{
  float (*r)[w] = malloc(sizeof(float[h][w]));
  float s = 0.0f;
  int y, x;
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++)
      r[y][x] = in[y][x] * 0.25f - (float)y;
    for (x = 0; x < w; x++)
      s = s + r[y][x] * r[y][w - 1 - x];
  }
  free(r);
  return s;
}

static double norms(int h, int w, const float in[h][w], double out[h])
{
  double *u = malloc(sizeof(double) * h);
  double total = 0.0;
  int y, x;
  for (y = 0; y < h; y++) {
    u[y] = 0.0;
    for (x = 0; x < w; x++)
      u[y] = u[y] + in[y][x] * in[y][x];
    out[y] = u[y] / (w + 1);
    total = total + u[y];
  }
  free(u);
  return total;
}

static float linear(int h, int w, const float in[h][w])
{
  float *acc = malloc(sizeof(float) * h * w);
  float s = 0.0f;
  int y, x;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      acc[y * w + x] = in[y][x] + 1.0f;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      s = s + acc[y * w + x];
  free(acc);
  return s;
}

static float flat_blur(int h, int w, const float in[h][w])
{
  float *bx = malloc(sizeof(float) * (h + 2) * w);
  float s = 0.0f;
  int y, x;
  for (y = 0; y < h + 2; y++)
    for (x = 0; x < w; x++)
      bx[y * w + x] = in[0][x] * 0.25f + (float)((y * 5 + x * 3) % 7);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      s = s + (bx[y * w + x] + bx[(y + 1) * w + x] * 2.0f + bx[(y + 2) * w + x]) / (float)(x + 1);
  free(bx);
  return s;
}

static float shifted(int h, int w, const float in[h][w])
{
  float *sh = malloc(sizeof(float) * (h + 1) * w);
  float s = 0.0f;
  int y, x;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      sh[y * w + (x + 1)] = in[y][x] + 2.0f;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      s = s + sh[y * w + (x + 1)] * (float)x;
  free(sh);
  return s;
}

int main(void)
{
  static const int hs[] = {1, 2, 7, 33, 200};
  static const int ws[] = {1, 3, 64, 301};
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 4; b++) {
      int h = hs[a], w = ws[b];
      float (*in)[w] = malloc(h * sizeof *in);
      double *out = malloc(h * sizeof *out);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          in[y][x] = (float)((y * 7 + x * 3) % 13) / 4.0f;
      float r = rows(h, w, in) + rows_sizeof(h, w, in);
      double n = norms(h, w, in, out);
      float l = linear(h, w, in);
      float b = flat_blur(h, w, in);
      float f = shifted(h, w, in);
      printf("%d %d %.3f %.3f %.3f %.3f %.3f %.3f\n", h, w, r, n, l, out[h - 1], b, f);
      free(in);
      free(out);
    }
  return 0;
}
