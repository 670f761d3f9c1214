/* pb_kernel.h: sizes and data type of the PolyBench-style grammar tests,
   selected like PolyBench's per-kernel headers (#ifdef SMALL_DATASET ...). */
#ifndef _PB_KERNEL_H
# define _PB_KERNEL_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(LARGE_DATASET)
#  define LARGE_DATASET
# endif

# if !defined(N) && !defined(M)
#  ifdef MINI_DATASET
#   define N 8
#   define M 6
#  elif defined(SMALL_DATASET)
#   define N 20
#   define M 12
#  else
#   define N 1000
#   define M 900
#  endif
# endif

# define _PB_N POLYBENCH_LOOP_BOUND(N,n)
# define _PB_M POLYBENCH_LOOP_BOUND(M,m)

# include "pb_types.h"

#endif /* !_PB_KERNEL_H */
