/* Issue 51: where a scalar's affine value is not proven to be the one a
   use sees, the use stays PF015 (a value written inside the SCoP). */
#define W 5
int g_row;
void take(int *p);

/* Written again before the use. */
void twice(int M[W * W])
{
  int a, b, row;
#pragma scop
  for (b = 0; b < W; b++) {
    row = b * W;
    row = row + 1;
    for (a = 0; a < W - 1; a++)
      M[row + a] = a;
  }
#pragma endscop
}

/* Not affine. */
void square(int M[W * W])
{
  int a, b, row;
#pragma scop
  for (b = 0; b < W; b++) {
    row = b * b;
    for (a = 0; a < W; a++)
      M[row + a] = a;
  }
#pragma endscop
}

/* Assigned under a condition the use is not under. */
void guarded(int M[W * W])
{
  int a, b, row;
  row = 0;
#pragma scop
  for (b = 0; b < W; b++) {
    if (b > 0)
      row = b * W;
    for (a = 0; a < W; a++)
      M[row + a] = a;
  }
#pragma endscop
}

/* Used before its assignment: the value of the previous iteration. */
void before(int M[W * W])
{
  int a, b, row;
  row = 0;
#pragma scop
  for (b = 0; b < W; b++) {
    for (a = 0; a < W; a++)
      M[row + a] = a;
    row = b * W;
  }
#pragma endscop
}

/* Written again inside the loop that uses it. */
void in_loop(int M[W * W])
{
  int a, b, row;
#pragma scop
  for (b = 0; b < W; b++) {
    row = b * W;
    for (a = 0; a < W; a++) {
      M[row] = a;
      row = b * W + a;
    }
  }
#pragma endscop
}

/* A `short` may not hold the value. */
void narrow(int M[W * W])
{
  int a, b;
  short row;
#pragma scop
  for (b = 0; b < W; b++) {
    row = b * W;
    for (a = 0; a < W; a++)
      M[row + a] = a;
  }
#pragma endscop
}

/* Its address is taken: a call may write it. */
void escapes(int M[W * W])
{
  int a, b, row;
  take(&row);
#pragma scop
  for (b = 0; b < W; b++) {
    row = b * W;
    for (a = 0; a < W; a++)
      M[row + a] = a;
  }
#pragma endscop
}

/* A global: any call may write it. */
void global(int M[W * W])
{
  int a, b;
#pragma scop
  for (b = 0; b < W; b++) {
    g_row = b * W;
    for (a = 0; a < W; a++)
      M[g_row + a] = a;
  }
#pragma endscop
}
