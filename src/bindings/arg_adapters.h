// src/bindings/arg_adapters.h: fast paths from Python array objects to ArrayViews, without copies.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>

#include "quadrants/array.h"

namespace qd::bindings {

// Keeps alive what a conversion borrowed, for the duration of one launch.
struct ArgHolder {
  Py_buffer buffer;
  bool has_buffer = false;
  std::shared_ptr<Array> imported;
  ArgHolder() = default;
  ArgHolder(const ArgHolder&) = delete;
  ArgHolder& operator=(const ArgHolder&) = delete;
  ~ArgHolder() {
    if (has_buffer) PyBuffer_Release(&buffer);
  }
};

// Tried in order: quadrants containers, torch tensors (DLPack C exchange API, no allocation),
// the buffer protocol (numpy), then any __dlpack__ producer. Returns false when obj is none of
// these; throws TypeError/ValueError for an array quadrants cannot use (e.g. complex dtype).
bool view_from_object(PyObject* obj, ArrayView& view, int& element_ndim, ArgHolder& holder);

// Registers the Python base class of qd.field / qd.ndarray objects (they hold `_array`).
void register_container_type(nanobind::handle type);

// "numpy.ndarray", "torch.Tensor", ... for messages.
std::string describe_object(PyObject* obj);

}  // namespace qd::bindings
