// tests/cuda_emulator/emulated_image.h: the "CUBIN" the emulated NVRTC makes and the emulated driver loads.
//
// A header, then the bytes of a host shared object built from the CUDA C++ by the system compiler.
// The header carries the length because cuModuleLoadData gets no size.
#pragma once

#include <cstdint>

inline constexpr char kEmulatedImageMagic[8] = {'Q', 'D', 'E', 'M', 'U', 'L', '0', '1'};

struct EmulatedImageHeader {
  char magic[8];
  uint64_t library_bytes;
};

// blockIdx and friends: the module defines them, the driver sets them before each call.
struct EmulatedDim3 {
  unsigned x, y, z;
};

using EmulatedTask = void (*)(void*, void*, void*, void*);
