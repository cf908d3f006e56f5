// include/quadrants/jit.h: compiles a kernel from its IR text (docs/IR.md) to native code, with a disk cache.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quadrants/dtype.h"
#include "quadrants/kernel_abi.h"
#include "quadrants/kernel_warning.h"

namespace qd {

struct OptimizedBuild;  // tiered compile's background build (src/jit/tiered_build.h)

// One kernel parameter as the IR declares it; the launcher fills QdArg number `index` from it.
struct KernelParam {
  enum class Kind { scalar, array };
  Kind kind;
  std::string name;
  DtypeCode dtype;
  int ndim = 0;                    // arrays: outer dims (the QdArg has ndim + element_shape.size() dims)
  std::vector<int> element_shape;  // arrays: () scalar elements, (3) vectors, (3 2) matrices
  bool contiguous = false;
  bool writable = true;
};

// A loaded kernel. Immutable and safe to share between threads; the shared library stays loaded
// while any copy of the shared_ptr lives.
struct CompiledKernel {
  std::string name;
  QdKernelEntry entry = nullptr;
  std::vector<DtypeCode> returns;  // the returned values' types, in order (QdKernelEntry's ret); empty: none
  // The generated C++ (runtime headers inlined). Empty for a kernel found through the cache index, whose copy in
  // the cache (`source_path`) is read only when asked for, by kernel_source(): users look at it, nothing runs it.
  std::string source;
  std::string source_path;           // that copy, for a kernel found through the cache index; else empty
  std::string library_path;          // the cached shared library
  int num_params = 0;
  std::vector<KernelParam> params;
  bool debug = false;
  // Debug mode: a QdKernelError with code 2 is a failed assert; its arg_index indexes this.
  std::vector<std::string> assert_messages;
  std::vector<KernelWarning> warnings;  // about the kernel's source (the Python layer shows them)
  std::shared_ptr<void> library;  // the dlopen handle
  // Its tasks: each top-level parallel loop, and each run of top-level statements between them (upstream's
  // offloaded tasks; a CUDA kernel launches one GPU kernel per task). 1 for a hand-written C++ kernel.
  int num_tasks = 1;
  // Tiered compile: `entry` is the quick build, and this is the optimized build compiling in the background; a
  // launcher switches to it between launches once it has loaded (src/jit/tiered_build.h). Null otherwise.
  std::shared_ptr<OptimizedBuild> optimized;
};

// Parses, checks, types, simplifies, generates C++, compiles (or finds it in the cache) and loads.
// Throws KernelUserError for errors in the kernel, ValueError for malformed IR text and
// CompileError when the system compiler fails.
// tiered: a kernel of at least QD_TIERED_COMPILE_BYTES of C++ (src/jit/tiered_build.h) that is not in the cache
// is first compiled quickly and returned at once with `optimized` set, while its optimized build compiles in the
// background; a KernelLauncher swaps it in between two launches. Off by default here: launch_kernel and a C++
// program that keeps `entry` would keep running the quick build.
enum class TieredCompile {
  off,    // every kernel compiles optimized at once
  exact,  // kernels without fast_math, whose two builds give bit-identical results
  all,    // fast_math kernels too: their results may change in the last bits when the optimized build comes in
};
std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& ir_text,
                                                     TieredCompile tiered = TieredCompile::off);

// A kernel's generated C++: `source`, else (a kernel found through the cache index) its cached copy, read now; "" when
// that cannot be read (evicted since).
std::string kernel_source(const CompiledKernel& kernel);

// Waits until the optimized builds of every tiered compile so far have loaded (or failed); false if
// timeout_seconds (unless negative: no limit) passed first. Launchers switch to them at their next launch.
bool wait_for_optimized_builds(double timeout_seconds = -1);

// The process-wide mode of tiered compile for the Python package's kernels: set_tiered_compile's, else
// QD_TIERED_COMPILE's (0/off, 1/on/exact, all), else exact.
void set_tiered_compile(TieredCompile mode);
TieredCompile tiered_compile_setting();

// Compiles a hand-written C++ kernel: `source` defines `name`, a function whose parameters are, in
// order, qd::Ndarray<T, dims> for arrays and T for scalars (qd_cpp_kernel.h), returning `returns`
// or void. A generated entry point converts QdArgs, so it launches like any other kernel.
std::shared_ptr<const CompiledKernel> compile_cpp_kernel(const std::string& name, const std::string& source,
                                                         const std::vector<KernelParam>& params,
                                                         std::optional<DtypeCode> returns);

// Parse and print again: the IR text in canonical form.
std::string print_ir(const std::string& ir_text);

// The IR text after every pass of the pipeline.
std::string run_passes(const std::string& ir_text);

// Whether compiled kernels are kept in and loaded from the disk cache (on by default). Off, every
// kernel is compiled in a private temporary directory that is removed once the kernel is loaded.
void set_disk_cache_enabled(bool enabled);
bool disk_cache_enabled();
// The directory the disk cache uses (created 0700; see src/jit/disk_cache.h for how it is chosen).
std::string cache_directory();

}  // namespace qd
