// src/bindings/bind_runtime.cpp: process-wide runtime settings: the thread pool and container types.
#include <nanobind/nanobind.h>

#include "bindings/arg_adapters.h"
#include "quadrants/thread_pool.h"

namespace nb = nanobind;

namespace qd::bindings {

void bind_runtime(nb::module_& m) {
  m.def("register_container_type", &register_container_type,
        "Registers the Python base class of fields and ndarrays, which kernels take without copying.");
  m.def("register_numpy_type", &register_numpy_type, "Registers numpy.ndarray for the direct argument path.");
  m.def("set_num_threads", &set_num_threads, "Resizes the CPU thread pool (0: one per hardware thread).");
  m.def("num_threads", [] { return default_thread_pool().num_threads(); });
}

}  // namespace qd::bindings
