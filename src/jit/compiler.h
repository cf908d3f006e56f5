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
  std::string key;  // its disk cache key (load_by_key's); empty when not cached
};

// Replaces each `#include "NAME"` whose NAME is an embedded header with that header's text (once).
std::string expand_embedded_includes(const std::string& source);

// Which build of a kernel (tiered compile, src/jit/tiered_build.h): the optimized one (the flags every kernel had
// before tiers existed), or the quick first build that runs while the optimized one compiles in the background.
// The tier's flags are part of the cache key, and a quick entry's name says so (NAME-quick-KEY.so).
enum class Tier { optimized, quick };

struct BuildOptions {
  bool fast_math = false;
  bool standalone = true;  // the source needs no C++ runtime library (generated kernels; not hand-written C++ ones)
  Tier tier = Tier::optimized;
  bool in_background = false;  // a background build: never on the spare compiler, which the foreground's builds use
};

// `source` must be self-contained (see expand_embedded_includes). A warm cache only dlopen()s.
// Throws CompileError with the compiler's output and the path of the kept source.
LoadedLibrary compile_and_load(const std::string& kernel_name, const std::string& source, const BuildOptions& options);
inline LoadedLibrary compile_and_load(const std::string& kernel_name, const std::string& source, bool fast_math,
                                      bool standalone) {
  return compile_and_load(kernel_name, source, BuildOptions{fast_math, standalone});
}

// The library the disk cache holds for this source and tier, without compiling; empty (no handle) on a miss, with
// the cache off, or without a compiler.
LoadedLibrary load_cached(const std::string& kernel_name, const std::string& source, const BuildOptions& options);

// What a library's cache key depends on besides the generated source and the options in the IR: the compiler
// (command and identity), the host CPU, this core's version and the size settings that pick flags. Empty when
// there is no compiler or the disk cache is off. The compiled-kernel index (compiled_index.h) keys on it.
std::string library_environment();

// The cache key the optimized build of this source would have (load_cached's, with options.tier ignored); empty
// with the cache off or without a compiler.
std::string optimized_library_key(const std::string& kernel_name, const std::string& source, BuildOptions options);

// The optimized library cached under `key` for this kernel name (as load_cached finds it, verified), without
// its source; empty on a miss.
LoadedLibrary load_by_key(const std::string& kernel_name, const std::string& key);

// Removes the cached library of this source and tier, if any (a quick build, once its optimized build is stored).
void remove_cached(const std::string& kernel_name, const std::string& source, const BuildOptions& options);

// Whether the quick tier compiles this source with other flags than the optimized one (else tiers are pointless).
bool tiers_differ(const std::string& source);

// The compiler used when CXX is unset and PATH has no c++ (the Python package passes ziglang's
// clang); `notice` is printed to stderr once, before its first compile. Empty command: none.
void set_fallback_compiler(const std::vector<std::string>& command, const std::string& notice);

// How many times this process has run the compiler on a kernel (for tests of the cache).
int compiler_runs();

}  // namespace qd::jit
