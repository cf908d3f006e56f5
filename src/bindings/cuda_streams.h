// src/bindings/cuda_streams.h: the CUDA stream a launch from Python runs on, chosen from its arguments.
#pragma once

#include <cstdint>

#include "bindings/arg_adapters.h"
#include "quadrants/cuda.h"

namespace qd::bindings {

// The stream a CUDA launch runs on: `explicit_stream` if given; else torch's current stream for the
// device when a torch CUDA tensor is among the arguments (through the DLPack exchange API or, on
// torch without it, marked by the adapters), so the second seed's rule about PyTorch's stream holds
// with no user code; else CuPy's current stream when a CuPy array is; else the legacy default
// stream. Before returning it, makes that stream wait for every argument's producer stream
// (__cuda_array_interface__ v3 streams, streams handed to __dlpack__) without blocking the host.
CUstream choose_stream(const ArgSlot* slots, size_t n, const uintptr_t* explicit_stream, int device);

}  // namespace qd::bindings
