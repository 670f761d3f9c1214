/* pbstyle.h: a small header written for polyfold's tests that follows the
   conventions of PolyBench/C 4.2.1's polybench.h (the same macro names and
   parameters, its own definitions): arrays in prototypes through
   POLYBENCH_nD, loop bounds through POLYBENCH_LOOP_BOUND, an empty
   POLYBENCH_RESTRICT and a padding factor. */
#ifndef _PBSTYLE_H
# define _PBSTYLE_H

# include <stdlib.h>

# ifndef POLYBENCH_PADDING_FACTOR
#  define POLYBENCH_PADDING_FACTOR 0
# endif

# ifdef POLYBENCH_USE_C99_PROTO
#  define POLYBENCH_C99_SELECT(x,y) y
# else
#  define POLYBENCH_C99_SELECT(x,y) x
# endif

# ifdef POLYBENCH_USE_SCALAR_LB
#  define POLYBENCH_LOOP_BOUND(x,y) x
# else
#  define POLYBENCH_LOOP_BOUND(x,y) y
# endif

# define POLYBENCH_RESTRICT

# define POLYBENCH_1D(var, dim1, ddim1) \
  var[POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \
  var[POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR] \
     [POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]

#endif /* !_PBSTYLE_H */
