// src/jit/compiler.h: runs the system C++ compiler on generated source, through the disk cache, and loads the result.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quadrants/kernel_abi.h"

namespace qd::jit {

struct LoadedLibrary {
  std::shared_ptr<void> handle;  // dlclose()d with the last reference
  QdKernelEntry entry = nullptr;
  std::string library_path;
  std::string source_path;
};

// Replaces each `#include "NAME"` whose NAME is an embedded header with that header's text (once).
std::string expand_embedded_includes(const std::string& source);

// `source` must be self-contained (see expand_embedded_includes). A warm cache only dlopen()s.
// standalone: the source needs no C++ runtime library (generated kernels; not hand-written C++ ones).
// Throws CompileError with the compiler's output and the path of the kept source.
LoadedLibrary compile_and_load(const std::string& kernel_name, const std::string& source, bool fast_math,
                               bool standalone);

// The compiler used when CXX is unset and PATH has no c++ (the Python package passes ziglang's
// clang); `notice` is printed to stderr once, before its first compile. Empty command: none.
void set_fallback_compiler(const std::vector<std::string>& command, const std::string& notice);

// How many times this process has run the compiler on a kernel (for tests of the cache).
int compiler_runs();

}  // namespace qd::jit
