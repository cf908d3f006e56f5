// src/jit/nvrtc.h: NVRTC, loaded with dlopen (never linked): where it is, its version, and compiling with it.
#pragma once

#include <string>
#include <vector>

namespace qd::jit {

struct NvrtcImage {
  std::vector<char> image;  // CUBIN, or PTX text when is_ptx
  bool is_ptx = false;
};

// Loads NVRTC on first use (once per process); false when no candidate location holds it.
bool nvrtc_loaded();

// "NVRTC <major>.<minor>" plus the in-memory headers we hand it: what a cached image depends on
// besides the source and the options. Throws CompileError when NVRTC is missing.
std::string nvrtc_identity();

// What to compile for: "sm_XY" (a CUBIN) when NVRTC supports that architecture, otherwise
// "compute_XY" of the newest supported one below it (PTX the driver finishes for the device).
// Throws CompileError when NVRTC is missing or supports nothing at or below XY.
std::string nvrtc_target(int cc_major, int cc_minor);

// Compiles `source` (self-contained except for <stdint.h>, which NVRTC is given) for `target`.
// Throws CompileError with NVRTC's log when it rejects the code.
NvrtcImage nvrtc_compile(const std::string& program_name, const std::string& source, const std::string& target,
                         const std::vector<std::string>& options);

// The file NVRTC was loaded from ("" when it is missing): libraries of the same CUDA release lie beside it.
std::string nvrtc_library_path();

// How many programs this process has compiled with NVRTC (for tests of the cache).
int nvrtc_runs();

}  // namespace qd::jit
