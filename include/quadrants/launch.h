// include/quadrants/launch.h: launching compiled kernels on the CPU or a CUDA device, from C++ and Python alike.
//
// A KernelLauncher is one kernel as its callers see it: named parameters, and behind them the variants
// compiled so far, one per argument signature (each array's dtype, dims, element shape, contiguity,
// writability and device; never its shape). A call packs its arguments, finds the variant for their
// signature (the one used last, else a small table, else one compiled through the launcher's callback)
// and runs it on the thread pool or on the target's CUDA device. Host arrays given to a CUDA variant are
// copied to the device and back; host arrays whose data is not aligned to their elements run on aligned
// copies; each copy is announced once per parameter through LaunchHooks::warn.
//
// The Python package's kernels are KernelLaunchers too (src/bindings/ converts Python arguments). A C++
// program either builds a KernelLauncher with its own compile callback (from IR text that a Python kernel
// exported with `kernel.export_ir(*example_args)`), or runs a kernel it compiled itself with launch_kernel.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quadrants/array.h"
#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/jit.h"

namespace qd {

// Where kernels run: the CPU's thread pool, or a CUDA device.
struct Target {
  bool cuda = false;
  int device = 0;  // the CUDA device, when cuda
};

// The target of launches from now on, for every launcher of the process (qd.init sets it). Not synchronized:
// set it while no other thread launches. Variants compiled for another target stay in their launchers.
namespace detail {
extern Target process_target;  // read on every launch, so current_target() is inline
}
inline Target current_target() { return detail::process_target; }
void set_target(Target target);

// The task count (top-level parallel loops and runs of serial statements) of the kernel launched last, in
// any thread; 0 before any launch.
int last_launch_tasks();

// One parameter as callers pass it.
struct LaunchParam {
  enum class Kind { scalar, array };
  Kind kind = Kind::scalar;
  std::string name;
  std::optional<DtypeCode> dtype;  // scalars: how a KernelArg's number converts; arrays bring their own
  int count = 1;  // the kernel parameters it fills: a vector passed by value fills one per entry (Python)
  int element_ndim = 0;  // arrays given as KernelArgs: trailing dims that are a vector's or matrix's entries
};

// One kernel argument: an array view (host or CUDA memory) or a scalar.
struct KernelArg {
  enum class Kind { array, integer, floating };
  Kind kind;
  ArrayView view;
  int64_t integer = 0;
  double floating = 0;

  static KernelArg array(const ArrayView& view) { return {Kind::array, view, 0, 0}; }
  static KernelArg of_int(int64_t value) { return {Kind::integer, {}, value, 0}; }
  static KernelArg of_float(double value) { return {Kind::floating, {}, 0, value}; }
};

// What selects a variant for one array argument: everything but its shape (see array_signature).
struct ArraySignature {
  DtypeCode dtype = DtypeCode::f32;
  int ndim = 0;          // outer dims
  int element_ndim = 0;  // trailing dims that are a vector's or matrix's entries
  int64_t element_shape[2] = {};
  bool contiguous = false;
  bool writable = false;
  DeviceId::Kind device = DeviceId::Kind::cpu;
};

// The signature of an array argument packed in 64 bits, so that the per-call lookup is a few integer compares,
// and the way back. Element extents are kept to 16 bits each (larger ones are rejected before packing).
uint64_t array_signature(const ArrayView& view, int element_ndim);
ArraySignature unpack_array_signature(uint64_t packed);

// A compiled variant as a compile callback hands it back: a CPU or a CUDA kernel whose parameters are the
// launcher's (each LaunchParam's count of them), then one array parameter per global.
struct CompiledVariant {
  std::shared_ptr<const CompiledKernel> cpu;
  std::shared_ptr<const CudaCompiledKernel> cuda;
  std::vector<std::shared_ptr<Array>> globals;  // arrays the kernel uses as globals (fields), appended to every call
};

class KernelLauncher;

// What a miss asks to compile: the launcher's kernel for these arguments, on this target.
struct CompileRequest {
  const KernelLauncher& launcher;
  const uint64_t* key;  // per parameter: 0 for a scalar, array_signature() for an array
  Target target;        // where the arguments are placed: a CUDA variant is expected when target.cuda
  void* context;        // what the caller passed along with the call (the Python bindings: the argument tuple)
  ArraySignature array(size_t param) const { return unpack_array_signature(key[param]); }
};
using CompileCallback = std::function<CompiledVariant(const CompileRequest&)>;

// What a launch asks of its caller beyond the arguments. The defaults suit a C++ program.
class LaunchHooks {
 public:
  virtual ~LaunchHooks() = default;
  // A notice given once per parameter of a launcher: its argument is copied on every call. Default: stderr.
  virtual void warn(const std::string& message);
  // Around the parts of a launch that need none of the caller's locks (the kernel's run, copies to and from
  // the device), on the launching thread, in pairs: the Python bindings release and retake the GIL.
  virtual void release() {}
  virtual void reacquire() {}
};

struct Specialization;  // src/launch/specialization.h
class LaunchFrame;      // src/launch/launch_frame.h: one call, as the Python bindings make it
struct FrameStorage;    // src/launch/launch_frame.h: the arguments of a frame with more than fit its stack

// One kernel: its parameters, its compiled variants and its launches. Not synchronized: launch it from one
// thread at a time, or under a lock of the caller's that LaunchHooks::release() gives up while kernels run
// (the Python bindings: the GIL).
class KernelLauncher {
 public:
  // compile: called on a miss. cpu_only: the kernel is host code whatever the target (hand-written C++ kernels).
  KernelLauncher(std::string name, std::vector<LaunchParam> params, CompileCallback compile, bool cpu_only = false);
  ~KernelLauncher();
  KernelLauncher(const KernelLauncher&) = delete;  // owns loaded code
  KernelLauncher& operator=(const KernelLauncher&) = delete;

  // Runs the kernel on args, one per parameter (a LaunchParam with a count above 1 cannot be given here),
  // compiling a variant on a miss, on `stream` when the target is CUDA (null: the legacy default stream).
  // Returns the values the kernel returned, in order: .f for floats, .i otherwise. Throws TypeError or
  // ValueError naming the parameter for an argument that does not fit, and the kernel's own errors
  // (IndexError, AssertionError) as the launch found them. The CUDA launch waits for the kernel only when it
  // returns values, checks errors, or wrote a staged host array.
  std::vector<QdArg> launch(const std::vector<KernelArg>& args, CUstream stream = nullptr);
  std::vector<QdArg> launch(const std::vector<KernelArg>& args, LaunchHooks& hooks, CUstream stream = nullptr);

  // Drops every compiled variant, once no kernel runs.
  void clear();

  // Tiered compile: how many variants still run their quick build (the optimized one not swapped in yet).
  int quick_variants() const;

  // Launches go to `target` from now on, whatever current_target() says (launch_kernel pins its kernel's).
  void pin_target(Target target) { pinned_ = target; }

  const std::string& name() const { return name_; }
  const std::vector<LaunchParam>& params() const { return params_; }
  // Where this launcher's arguments go now: the pinned target (the host for a cpu_only launcher), else the
  // current one.
  Target target() const { return pinned_ ? *pinned_ : current_target(); }

 private:
  friend class LaunchFrame;
  const Specialization* find(const uint64_t* key) const;
  const Specialization& compile(const uint64_t* key, Target target, void* context);
  void check_variant(const uint64_t* key, const std::vector<KernelParam>& params, size_t globals) const;
  std::string where(size_t param) const;  // "Kernel 'k' argument 'x'"
  bool first_warning(std::vector<bool>& warned, size_t param);
  void pack_scalar(size_t param, const KernelArg& arg, QdArg& out) const;

  std::string name_;
  std::vector<LaunchParam> params_;
  std::vector<size_t> first_slot_;      // per parameter: its first kernel parameter
  std::vector<std::string> arg_names_;  // per kernel parameter filled by the arguments
  CompileCallback compile_;
  bool cpu_only_;
  std::optional<Target> pinned_;
  std::vector<std::unique_ptr<Specialization>> variants_;  // stable addresses: last_ and callers point into it
  const Specialization* last_ = nullptr;
  std::vector<bool> staging_warned_;  // per parameter: the host-staging notice was given
  std::vector<bool> realign_warned_;  // per parameter: the realignment notice was given
  size_t most_globals_ = 0;  // the most globals a variant has appended after the arguments
  // The argument buffer of a frame too large for the stack, kept between launches (launch_frame.h); taken and
  // given back atomically, so a launch nested in another's compile makes its own.
  std::atomic<FrameStorage*> spare_storage_{nullptr};
};

// Runs `kernel` on the CPU's thread pool over args, one per kernel parameter (fields it uses as globals
// included), checked against the kernel's parameters (count, kind, dtype, dims, contiguity, writability;
// TypeError/ValueError naming the parameter). The result's scalar holds the first returned value when the
// kernel returns any: .f for floats, .i otherwise. `returns`, when given, receives every returned value in
// order (a kernel returning a vector, matrix or tuple returns several).
QdArg launch_kernel(const CompiledKernel& kernel, const std::vector<KernelArg>& args,
                    std::vector<QdArg>* returns = nullptr);

// The same for a CUDA kernel on `device` (cuda_init() first), on `stream` (null: the legacy default stream):
// host arrays are copied to the device and back around the launch.
QdArg launch_kernel(const std::shared_ptr<const CudaCompiledKernel>& kernel, const std::vector<KernelArg>& args,
                    std::vector<QdArg>* returns = nullptr, int device = 0, CUstream stream = nullptr);

}  // namespace qd
