// src/launch/launch_frame.cpp: one call: placing and packing arguments, picking the variant, running it.
#include "launch/launch_frame.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <shared_mutex>
#include <string>

#include "quadrants/errors.h"

namespace qd {
namespace {

std::atomic<int> last_tasks{0};  // upstream's get_num_offloaded_tasks_on_last_call

// Whether a run was short enough that the next need not release the caller's locks (Specialization::short_run).
#if defined(__x86_64__) || defined(_M_X64)
inline uint64_t ticks() { return __rdtsc(); }  // a few ns, where reading the clock may be a system call
constexpr uint64_t kShortRunTicks = 50'000;   // about 10-25 us
#else
inline uint64_t ticks() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
constexpr uint64_t kShortRunTicks = 20'000;
#endif

// Unlocks a held lock when it goes out of scope, ahead of the caller's own guards.
struct UnlockOnExit {
  std::shared_lock<std::shared_mutex>& lock;
  ~UnlockOnExit() { lock.unlock(); }
};

}  // namespace

int last_launch_tasks() { return last_tasks.load(std::memory_order_relaxed); }

LaunchFrame::LaunchFrame(KernelLauncher& launcher, LaunchHooks& hooks, Mode mode)
    : launcher_(launcher),
      hooks_(hooks),
      mode_(mode),
      target_(launcher.target()),
      key_(inline_key_),
      packed_(inline_packed_),
      capacity_(kInlineKernelArgs) {
  size_t params = launcher.params_.size();
  size_t args = launcher.arg_names_.size() + launcher.most_globals_;
  if (params > kInlineKernelArgs || args > kInlineKernelArgs) use_storage(params, args, false);
  for (size_t i = 0; i < params; ++i) key_[i] = 0;
}

LaunchFrame::~LaunchFrame() {
  if (storage_) delete launcher_.spare_storage_.exchange(storage_.release());  // for the next launch
}

// Puts the key and the packed arguments in storage of at least this size: the launcher's spare, else new. keep:
// the arguments are packed already (run() found more globals than there was room for) and move along.
void LaunchFrame::use_storage(size_t params, size_t args, bool keep) {
  if (!storage_) {
    storage_.reset(launcher_.spare_storage_.exchange(nullptr));
    if (!storage_) storage_ = std::make_unique<FrameStorage>();
    if (storage_->key.size() < params) storage_->key.resize(params);
    if (storage_->packed.size() < args) storage_->packed.resize(args);
    if (keep) {  // from the inline arrays, which held them all
      std::copy(key_, key_ + params, storage_->key.data());
      std::copy(packed_, packed_ + launcher_.arg_names_.size(), storage_->packed.data());
    }
  } else if (storage_->packed.size() < args) {
    storage_->packed.resize(args);
  }
  key_ = storage_->key.data();
  packed_ = storage_->packed.data();
  capacity_ = storage_->packed.size();
}

LaunchFrame::Extras& LaunchFrame::extras() {
  if (!extras_) extras_ = std::make_unique<Extras>();
  return *extras_;
}

// An array that cannot run where it is: an error, or a copy.
void LaunchFrame::add_moved_array(size_t param, ArrayView view, int element_ndim) {
  bool misaligned = is_misaligned(view);
  if (misaligned && view.device.kind != DeviceId::Kind::cpu) {
    throw ValueError(launcher_.where(param) + ": the array's data is not aligned to its " +
                     std::to_string(dtype_size(view.dtype)) + "-byte elements; pass an aligned copy (e.g. x.clone()).");
  }
  place(param, view, element_ndim);
  if (misaligned && view.device.kind == DeviceId::Kind::cpu) realign(param, view, element_ndim);
  pack_view(view, *slots(param));
  key_[param] = array_signature(view, element_ndim);
}

// Arrays must live where the kernel runs; host arrays meeting a CUDA kernel are staged.
void LaunchFrame::place(size_t param, ArrayView& view, int element_ndim) {
  bool on_cuda = view.device.kind == DeviceId::Kind::cuda;
  if (!target_.cuda && on_cuda) {
    const char* advice = launcher_.cpu_only_ ? "; move it with .cpu() (C++ kernels are host code)."
                         : launcher_.pinned_ ? "; copy it to host memory first."
                                             : "; move it with .cpu() or init with qd.cuda.";
    throw ValueError(launcher_.where(param) + ": the array is on cuda:" + std::to_string(view.device.index) +
                     ", but the kernel runs on the CPU" + advice);
  }
  if (target_.cuda && on_cuda && view.device.index != target_.device) {
    throw ValueError(launcher_.where(param) + ": the array is on cuda:" + std::to_string(view.device.index) +
                     ", but the kernel runs on cuda:" + std::to_string(target_.device) + ".");
  }
  if (!target_.cuda || on_cuda) return;
  if (mode_ == Mode::describe) {  // the device copy that a call would make, without making it
    view.device = {DeviceId::Kind::cuda, target_.device};
    fill_contiguous_strides(view);
    return;
  }
  if (launcher_.first_warning(launcher_.staging_warned_, param)) {
    int64_t bytes = view.size() * dtype_size(view.dtype);
    hooks_.warn(launcher_.where(param) + " is in host memory but the kernel runs on cuda:" +
                std::to_string(target_.device) + "; it is copied to the device on every call, and back when the "
                "kernel writes it (" + std::to_string(bytes) + " bytes each way). Pass a CUDA tensor, a CuPy array "
                "or a qd.ndarray to avoid the copies.");
  }
  view = extras().staging.stage(view, element_ndim, target_.device, launcher_.first_slot_[param], hooks_);
}

// A misaligned host array meeting a CPU kernel runs on an aligned copy. (Host staging for a CUDA kernel
// copies it anyway.)
void LaunchFrame::realign(size_t param, ArrayView& view, int element_ndim) {
  if (mode_ == Mode::describe) {  // the aligned copy that a call would make
    fill_contiguous_strides(view);
    return;
  }
  if (launcher_.first_warning(launcher_.realign_warned_, param)) {
    hooks_.warn(launcher_.where(param) + ": the array's data is not aligned to its " +
                std::to_string(dtype_size(view.dtype)) + "-byte elements, so every call copies it to an aligned "
                "buffer and back. Pass an aligned array (x.copy()) to avoid the copies.");
  }
  view = extras().realigned.stage(view, element_ndim);
}

const Specialization* LaunchFrame::select(void* context) {
  size_t n = launcher_.params_.size();
  const Specialization* spec = launcher_.last_;
  if (spec && same_key(*spec, key_, n)) return spec;
  spec = launcher_.find(key_);
  if (!spec) spec = &launcher_.compile(key_, target_, context);
  if (static_cast<bool>(spec->cuda) != target_.cuda) return nullptr;
  launcher_.last_ = spec;
  return spec;
}

QdArg* LaunchFrame::returns_buffer(size_t count) {
  if (count <= kInlineReturns) return inline_returns_;
  extras().returns.reset(new QdArg[count]);
  return extras_->returns.get();
}

// The launch gate is taken before the caller's locks are released (the Python bindings: with the GIL
// held), so that nothing that frees memory a kernel may use (qd.reset(), clear(), which hold those locks
// while they wait for the gate) can free the variant or its globals before the run; it is released before
// they are taken back, so neither side can wait for the other.
const QdArg* LaunchFrame::run(const Specialization& spec, CUstream stream) {
  if (spec.upgrade) swap_in_optimized(spec);  // tiered compile; before the gate is taken: the swap needs it free
  last_tasks.store(spec.num_tasks, std::memory_order_relaxed);
  total_ = launcher_.arg_names_.size();
  // A variant compiled by this call may have more globals than the frame made room for.
  size_t needed = total_ + spec.globals.size();
  if (needed > capacity_) use_storage(launcher_.params_.size(), needed, true);
  for (const std::shared_ptr<Array>& global : spec.globals) pack_view(global->view(), packed_[total_++]);
  if (spec.cuda) return run_on_cuda(spec, stream);
  size_t count = spec.returns.size();
  QdArg* ret = returns_buffer(count);
  if (count) std::memset(ret, 0, count * sizeof(QdArg));
  uint64_t elapsed = 0;
  {
    std::shared_lock<std::shared_mutex> gate(launch_gate());
    std::optional<Released> released;
    if (!spec.short_run) released.emplace(hooks_);
    UnlockOnExit unlock{gate};  // destroyed first: the gate is dropped before the caller's locks return
    uint64_t start = ticks();
    run_entry(spec.entry, packed_, ret, launcher_.name_, spec.arg_names, spec.assert_messages);
    elapsed = ticks() - start;
  }
  spec.short_run = elapsed < kShortRunTicks;  // with the caller's locks held again, like the rest of the launcher
  if (extras_ && !extras_->realigned.empty()) extras_->realigned.copy_back();
  return ret;
}

const QdArg* LaunchFrame::run_on_cuda(const Specialization& spec, CUstream stream) {
  std::vector<QdArg> values;
  {
    std::shared_lock<std::shared_mutex> gate(launch_gate());
    Released released(hooks_);
    {
      UnlockOnExit unlock{gate};
      values = launch_cuda(spec.cuda, packed_, static_cast<int>(total_), stream, target_.device, spec.arg_names);
    }
    if (extras_ && !extras_->staging.empty()) extras_->staging.copy_back(stream, spec.cuda->param_written);
  }
  QdArg* ret = returns_buffer(values.size());
  std::copy(values.begin(), values.end(), ret);
  return ret;
}

}  // namespace qd
