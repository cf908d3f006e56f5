// src/bindings/arg_adapters.h: fast paths from Python array objects to ArrayViews, without copies.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <optional>

#include "quadrants/array.h"
#include "quadrants/cuda.h"
#include "runtime/launch.h"

namespace qd::bindings {

// Keeps alive what one argument's conversion borrowed. Trivially constructible on purpose: a launch
// keeps kInlineKernelArgs of these on the stack and initializes only the ones it uses.
struct ArgSlot {
  Py_buffer buffer;
  bool has_buffer;
  PyObject* keep;            // owned reference (e.g. an imported DLPack array), or null
  const void* exchange_api;  // the DLPackExchangeAPI a torch tensor came through, for its stream
  bool from_cupy;            // a CuPy array: CUDA launches use CuPy's current stream
  bool from_torch;           // a torch CUDA tensor without the exchange API: same, with torch's stream
  // The producer's work on this argument is ordered on producer_stream (a __cuda_array_interface__
  // v3 stream, or the stream given to __dlpack__): a launch on another stream must wait for it.
  bool has_producer_stream;
  CUstream producer_stream;
};

// The slots of one launch; releases exactly the first n on scope exit. A kernel with more parameters than
// kInlineKernelArgs (rare: a vector parameter counts once here) gets its slots from the heap.
class ArgSlots {
 public:
  explicit ArgSlots(size_t n) : n_(n), slots_(inline_slots_) {
    if (n > static_cast<size_t>(kInlineKernelArgs)) {
      heap_.reset(new ArgSlot[n]);
      slots_ = heap_.get();
    }
    for (size_t i = 0; i < n; ++i) {
      slots_[i].has_buffer = false;
      slots_[i].keep = nullptr;
      slots_[i].exchange_api = nullptr;
      slots_[i].from_cupy = false;
      slots_[i].from_torch = false;
      slots_[i].has_producer_stream = false;
    }
  }
  ~ArgSlots() {
    for (size_t i = 0; i < n_; ++i) {
      if (slots_[i].has_buffer) PyBuffer_Release(&slots_[i].buffer);
      Py_XDECREF(slots_[i].keep);
    }
  }
  ArgSlots(const ArgSlots&) = delete;
  ArgSlots& operator=(const ArgSlots&) = delete;
  ArgSlot& operator[](size_t i) { return slots_[i]; }
  const ArgSlot* data() const { return slots_; }

 private:
  size_t n_;
  ArgSlot* slots_;
  std::unique_ptr<ArgSlot[]> heap_;
  ArgSlot inline_slots_[kInlineKernelArgs];
};

// The view of one of quadrants' own arrays (a container, a qd.Tensor wrapping one, a core Array), lent: the argument
// keeps it alive and it is not copied per call (an ArrayView is 256 bytes); null for anything else.
const ArrayView* lent_view(PyObject* obj, int& element_ndim);

// Any other array converted into `view`, tried in order: numpy arrays, torch tensors (DLPack C exchange API, no
// allocation), the buffer protocol, __cuda_array_interface__ producers, then any __dlpack__ producer. Returns false
// when obj is none of these; throws TypeError/ValueError for an array quadrants cannot use (e.g. complex dtype).
bool converted_view(PyObject* obj, ArrayView& view, ArgSlot& holder);

// Whether obj is one of quadrants' own arrays (a qd.ndarray or qd.field, bare, in its container, or in a
// qd.Tensor wrapper) rather than an external one; argument errors word the two cases as upstream does.
bool is_quadrants_array(PyObject* obj);

// Registers numpy.ndarray, whose public struct layout gives the fastest path for numpy arguments.
void register_numpy_type(nanobind::handle type);

// Registers the Python base class of qd.field / qd.ndarray objects (they hold `_array`).
void register_container_type(nanobind::handle type);

// Registers qd.Tensor, the wrapper around a field or ndarray; kernels take it as what it wraps (its `_impl`).
void register_tensor_wrapper_type(nanobind::handle type);
// quadrants.ad's torch_grad(tensor), called for each torch tensor argument that requires grad from then on.
void register_torch_grad_hook(nanobind::handle hook);
bool torch_grad_checks_enabled();

// Whether obj.__dlpack_device__() is CUDA memory (device or managed), and which device.
bool dlpack_on_cuda(PyObject* obj, int* device);

// obj.__dlpack__(...), asking for a versioned capsule (retried without for producers older than
// DLPack 1.0). With a consumer stream (for CUDA producers), the producer orders its pending work
// before that stream, as the DLPack stream contract has it.
nanobind::object dlpack_capsule(PyObject* obj, std::optional<CUstream> consumer);

// The current stream of torch (on device) and of CuPy (on its current device), as driver handles.
CUstream torch_current_stream(int device);
CUstream cupy_current_stream();

// "numpy.ndarray", "torch.Tensor", ... for messages.
std::string describe_object(PyObject* obj);

}  // namespace qd::bindings
