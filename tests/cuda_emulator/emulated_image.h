// tests/cuda_emulator/emulated_image.h: the "CUBIN" the emulated NVRTC makes and the emulated driver loads.
//
// A header, then the bytes of a host shared object built from the CUDA C++ by the system compiler.
// The header carries the length because cuModuleLoadData gets no size.
#pragma once

#include <cstdint>

inline constexpr char kEmulatedImageMagic[8] = {'Q', 'D', 'E', 'M', 'U', 'L', '0', '1'};
// Relocatable device code (NVRTC's --relocatable-device-code=true) that calls into libcudadevrt: the driver loads
// it only once its linker (cuLink*, emulated_graph.cpp) has bound it to the library, which gives it the first magic.
inline constexpr char kEmulatedRelocatableMagic[8] = {'Q', 'D', 'E', 'M', 'U', 'L', 'R', '1'};

struct EmulatedImageHeader {
  char magic[8];
  uint64_t library_bytes;
};

// blockIdx and friends: the module defines them, the driver sets them before each call.
struct EmulatedDim3 {
  unsigned x, y, z;
};

using EmulatedTask = void (*)(void*, void*, void*, void*);

// Block and warp intrinsics (__syncthreads, __shfl_*_sync, __ballot_sync, ...): the prelude turns each
// into one call of the module's `qd_emulated_simt` pointer, which the driver sets to its scheduler
// (emulated_simt.cpp). op is a QdSimtOpCode (src/codegen/runtime/qd_simt.h); lane is the source lane
// of a shuffle, already resolved from its kind and width; name is the intrinsic's, for errors.
// cudaGraphSetConditional (libcudadevrt): the prelude turns it into a call of the module's
// `qd_emulated_set_conditional` pointer, which the driver sets (emulated_graph.cpp).
using EmulatedSetConditional = void (*)(unsigned long long handle, unsigned value);

using EmulatedSimtCall = unsigned long long (*)(int op, unsigned mask, unsigned long long value, int lane,
                                                const char* name);
