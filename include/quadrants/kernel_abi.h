// include/quadrants/kernel_abi.h: the C ABI between the launcher and JIT-compiled kernels (CPU and CUDA).
//
// Plain C so that generated code, the runtime and C++ users agree on it without sharing a compiler.
// The launcher fills one QdArg per kernel parameter, in parameter order; fields used as globals
// are appended after the user's parameters as array arguments.
#ifndef QUADRANTS_KERNEL_ABI_H
#define QUADRANTS_KERNEL_ABI_H

#include <stdint.h>

// Dims of an array argument, element dims included: upstream's 12 field/ndarray dims (its
// quadrants_max_num_indices) plus a matrix element's two.
#define QD_MAX_NDIM 14
#define QD_ABI_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

// One kernel argument. Arrays use data/shape/strides; scalars use the union, where integers of
// every width are sign- or zero-extended into i and floats of every width are widened into f.
typedef struct QdArg {
  void* data;
  int64_t shape[QD_MAX_NDIM];    // outer dims, then element dims (a 3-vector field adds one dim)
  int64_t strides[QD_MAX_NDIM];  // in elements, not bytes; may be zero or negative
  union {
    int64_t i;
    double f;
  } scalar;
} QdArg;

// A chunk [begin, end) of a parallel loop's flattened iteration space.
typedef void (*QdTaskFn)(void* closure, int64_t begin, int64_t end);

// First error raised by a kernel (debug bounds checks); the launcher turns it into an exception.
typedef struct QdKernelError {
  // 0: none, 1: index out of bounds, 2: a failed qd assert (debug mode), 4: a qd.simt block could not go on
  // (src/codegen/runtime/qd_simt.h), 3: an extent read as an
  // i32 does not fit one (index[0] holds it), 5: a push onto a full AD stack (index[0]: its capacity),
  // 6: a qd.simt shared array index out of bounds (debug mode; arg_index: the array's description among the
  // kernel's assert messages)
  int32_t code;
  int32_t arg_index;  // codes 1, 3: which QdArg; code 2: which of the kernel's assert messages
  int32_t ndim;       // code 2: how many of the message's values index[] holds
  int32_t dim;        // the offending dimension
  int64_t index[QD_MAX_NDIM];  // code 2: the message's values, as bits (docs/IR.md, assert)
} QdKernelError;

typedef struct QdLaunchContext {
  void* pool;
  // Runs fn over [0, n) split into chunks of at least grain; returns when all chunks are done.
  // serialize != 0 runs everything on the calling thread.
  void (*parallel_for)(void* pool, int64_t n, int64_t grain, int32_t serialize, QdTaskFn fn, void* closure);
  QdKernelError* error;  // written at most once per launch (first writer wins)
  int32_t* error_flag;   // atomically set 0 -> 1 by the first writer
} QdLaunchContext;

// Every generated CPU module exports this symbol. ret points to one QdArg per value the kernel returns
// (its IR `returns` types in order: a vector, matrix or tuple is several), of which the kernel writes
// the scalar union; it may be null when the kernel returns nothing.
typedef void (*QdKernelEntry)(const QdArg* args, const QdLaunchContext* ctx, QdArg* ret);
#define QD_KERNEL_ENTRY_SYMBOL "qd_kernel_entry"

#ifdef __cplusplus
}
#endif

#endif  // QUADRANTS_KERNEL_ABI_H
