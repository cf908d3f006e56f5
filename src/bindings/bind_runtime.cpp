// src/bindings/bind_runtime.cpp: process-wide runtime settings: the thread pool, container types, the profiler.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings/arg_adapters.h"
#include "quadrants/thread_pool.h"
#include "runtime/kernel_profiler.h"

namespace nb = nanobind;

namespace qd::bindings {

void bind_runtime(nb::module_& m) {
  m.def("register_container_type", &register_container_type,
        "Registers the Python base class of fields and ndarrays, which kernels take without copying.");
  m.def("register_tensor_wrapper_type", &register_tensor_wrapper_type,
        "Registers qd.Tensor, whose wrapped field or ndarray kernels take in its place.");
  m.def("register_torch_grad_hook", &register_torch_grad_hook,
        "From now on, gives each torch tensor argument that requires grad its .grad through `hook`.");
  m.def("torch_grad_checks", [] { return torch_grad_checks_enabled(); },
        "Whether launches give torch tensors that require grad a .grad (on once a kernel met one).");
  m.def("register_numpy_type", &register_numpy_type, "Registers numpy.ndarray for the direct argument path.");
  m.def("set_num_threads", &set_num_threads, "Resizes the CPU thread pool (0: one per hardware thread).");
  m.def("num_threads", [] { return default_thread_pool().num_threads(); });
  m.def("check_thread_pool", &check_thread_pool, nb::arg("num_threads"), nb::arg("rounds"),
        nb::call_guard<nb::gil_scoped_release>(),
        "Whether a fresh pool of num_threads runs every index of `rounds` loops exactly once.");
  m.attr("max_ndim") = QD_MAX_NDIM;  // dims of an array, element dims included (kernel_abi.h)
  m.def("set_kernel_profiling", &set_kernel_profiling, "Turns the kernel profiler on or off (qd.init(kernel_profiler=)).");
  m.def("kernel_profiling", &kernel_profiling);
  m.def("kernel_times", [] {
    nb::list rows;
    for (const KernelTimes& t : kernel_times()) rows.append(nb::make_tuple(t.name, t.count, t.total_ms, t.min_ms, t.max_ms));
    return rows;
  }, "(name, count, total_ms, min_ms, max_ms) per kernel launched since the last clear.");
  m.def("clear_kernel_times", &clear_kernel_times);
}

}  // namespace qd::bindings
