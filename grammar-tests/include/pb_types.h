/* pb_types.h: the element type, as PolyBench selects it (included by
   pb_kernel.h, found next to it). */
#if !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_DOUBLE
#endif
#ifdef DATA_TYPE_IS_FLOAT
# define DATA_TYPE float
# define SCALAR_VAL(x) x##f
#endif
#ifdef DATA_TYPE_IS_DOUBLE
# define DATA_TYPE double
# define SCALAR_VAL(x) x
#endif
