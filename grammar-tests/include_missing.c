/* A quoted header that cannot be found: a warning, and the macro it would
   define stays unknown (the loop bound is rejected). A system header is
   not read and not warned about. */
#include <stdio.h>
#include "no_such_header.h"
void f(double A[100]) {
  for (int i = 0; i < SIZE_FROM_HEADER; i++)
    A[i] = 0;
}
