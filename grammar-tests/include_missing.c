/* A quoted header that cannot be found: a warning, and the macro it would
   define stays unknown (the loop bound is rejected). A system header is
   not read and not warned about. */
#include <stdio.h>
#include "no_such_header.h"
void f(double A[100]) {
  for (int i = 0; i < SIZE_FROM_HEADER; i++)
    A[i] = 0;
}

/* A macro defined before a header polyfold cannot read loses its value:
   the header may redefine it. */
#define LEN 8
#include "also_missing.h"
void g(double B[100]) {
  for (int i = 0; i < LEN; i++)
    B[i] = 1;
}
