// src/launch/launch_frame.h: one call of a KernelLauncher: its arguments packed on the caller's stack, the
// variant they select, and its run on the CPU or a CUDA device.
#pragma once

#include <memory>
#include <vector>

#include "launch/arg_copies.h"
#include "launch/specialization.h"
#include "quadrants/launch.h"
#include "runtime/launch.h"

namespace qd {

// The arguments of a frame whose kernel takes more than kInlineKernelArgs of them (with its globals): its
// launcher keeps one between launches, so those launches allocate nothing either once it is large enough.
struct FrameStorage {
  std::vector<uint64_t> key;   // per parameter
  std::vector<QdArg> packed;   // per kernel parameter, globals included
};

// Made on the stack for one call (about 62 KB: kInlineKernelArgs arguments); allocates nothing unless an argument
// is copied, a variant compiled, more than 16 values returned or, the first time, more arguments packed than the
// stack part holds. KernelLauncher::launch and the Python bindings both call through it: the caller writes scalars
// into slots(), hands each array to add_array(), then select() and run().
class LaunchFrame {
 public:
  // describe: only say what the arguments select (the Python launcher's spec_of): arrays that would be
  // copied get the copy's strides and device in their signature, and no copy is made.
  enum class Mode { run, describe };
  LaunchFrame(KernelLauncher& launcher, LaunchHooks& hooks, Mode mode = Mode::run);
  ~LaunchFrame();
  LaunchFrame(const LaunchFrame&) = delete;
  LaunchFrame& operator=(const LaunchFrame&) = delete;

  // Parameter `param`'s first kernel parameter, where the caller writes a scalar's value (or a by-value
  // vector's entries, one QdArg each).
  QdArg* slots(size_t param) { return packed_ + launcher_.first_slot_[param]; }

  // Parameter `param` is this array (its last element_ndim dims are a vector's or matrix's entries). Checks
  // that it can run where the launcher's target is: a CUDA array on that device; a host array, copied to
  // the device for a CUDA target and to aligned memory when misaligned on the CPU (each announced once per
  // parameter). Packs it and records its signature. Inline: an array that runs where it is (every call but
  // those that copy) costs a few compares here.
  void add_array(size_t param, const ArrayView& view, int element_ndim) {
    bool in_place = view.device.kind == (target_.cuda ? DeviceId::Kind::cuda : DeviceId::Kind::cpu) &&
                    (!target_.cuda || view.device.index == target_.device) && !is_misaligned(view);
    if (!in_place) return add_moved_array(param, view, element_ndim);
    pack_view(view, *slots(param));
    key_[param] = array_signature(view, element_ndim);
  }

  // The signature so far, one word per parameter: 0 for scalars.
  const uint64_t* key() const { return key_; }
  const Target& target() const { return target_; }

  // The variant for the arguments: the one used last, else one from the launcher's table, else a new one
  // from its compile callback, given `context`. Null when the table's or the new variant runs elsewhere
  // than the arguments were placed for (a first call before qd.init, whose compile chose the target): the
  // caller makes a new frame and adds the arguments again.
  const Specialization* select(void* context);

  // Runs the variant with its globals after the arguments: on the thread pool, or on the target's CUDA
  // device on `stream`; then copies realigned and staged arrays back. Returns the values the kernel
  // returned (spec.returns.size() of them), valid while the frame lives.
  const QdArg* run(const Specialization& spec, CUstream stream);

 private:
  static void pack_view(const ArrayView& view, QdArg& out) {
    out.data = view.data;
    for (int d = 0; d < view.ndim; ++d) {
      out.shape[d] = view.shape[d];
      out.strides[d] = view.strides[d];
    }
  }
  void use_storage(size_t params, size_t args, bool keep);
  void add_moved_array(size_t param, ArrayView view, int element_ndim);
  void place(size_t param, ArrayView& view, int element_ndim);
  void realign(size_t param, ArrayView& view, int element_ndim);
  const QdArg* run_on_cuda(const Specialization& spec, CUstream stream);
  QdArg* returns_buffer(size_t count);

  // What only some calls need, made when first needed, so that a frame costs a few stores to make.
  struct Extras {
    HostStaging staging;     // host arrays given to a CUDA kernel
    RealignedArgs realigned;  // misaligned host arrays on the CPU
    std::unique_ptr<QdArg[]> returns;  // more returned values than inline_returns_ holds
  };
  Extras& extras();

  static constexpr size_t kInlineReturns = 16;  // kernels returning at most this many values keep them here

  KernelLauncher& launcher_;
  LaunchHooks& hooks_;
  Mode mode_;
  Target target_;  // where the arguments are placed
  size_t total_ = 0;  // QdArgs packed by run(): the arguments', then the globals'
  std::unique_ptr<Extras> extras_;
  QdArg inline_returns_[kInlineReturns];
  // The key and the packed arguments: the inline arrays, or storage_ (the launcher's, given back when done).
  uint64_t* key_;
  QdArg* packed_;
  size_t capacity_;  // QdArgs packed_ holds
  std::unique_ptr<FrameStorage> storage_;
  uint64_t inline_key_[kInlineKernelArgs];
  QdArg inline_packed_[kInlineKernelArgs];  // last: only the used part of it is touched
};

}  // namespace qd
