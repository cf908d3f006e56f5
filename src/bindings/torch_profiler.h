// src/bindings/torch_profiler.h: kernel launches named in torch.profiler traces, at no cost when no profiler runs.
#pragma once

#include <Python.h>

#include <string>

namespace qd::bindings {

// Whether a torch profiler is recording (torch.profiler.profile, torch.autograd.profiler.profile,
// emit_nvtx/emit_itt): torch's own fast flag, torch.autograd.profiler._is_profiler_enabled. Until
// that module is imported this costs a comparison of sys.modules' size; after, one dict lookup.
// The GIL must be held.
bool torch_profiler_active();

// While it lives, a torch record_function range named after the kernel is open, so the launch shows
// up in the profiler's events under that name. Construct it only when torch_profiler_active(); the
// GIL must be held at construction and destruction (both call into torch).
class TorchProfilerRange {
 public:
  explicit TorchProfilerRange(const std::string& name);
  ~TorchProfilerRange();
  TorchProfilerRange(const TorchProfilerRange&) = delete;
  TorchProfilerRange& operator=(const TorchProfilerRange&) = delete;

 private:
  PyObject* range_ = nullptr;  // the entered context manager; null if entering it failed
};

}  // namespace qd::bindings
