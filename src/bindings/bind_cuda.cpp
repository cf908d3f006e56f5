// src/bindings/bind_cuda.cpp: _core's CUDA runtime functions: status, device init, device arrays, copies, streams.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "quadrants/cuda.h"
#include "quadrants/errors.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

// Streams cross the boundary as integers, as torch's cuda_stream and CuPy's ptr give them.
CUstream stream_of(uintptr_t handle) { return reinterpret_cast<CUstream>(handle); }
CUevent event_of(uintptr_t handle) { return reinterpret_cast<CUevent>(handle); }

}  // namespace

void bind_cuda(nb::module_& m) {
  m.def("cuda_status", &cuda_status, "'' when CUDA is usable, otherwise what is missing.");
  m.def("cuda_device_count", &cuda_device_count);
  m.def("cuda_graph_counters", [] {
    CudaGraphCounters c = cuda_graph_counters();
    nb::dict out;
    out["nodes_on_last_call"] = c.nodes_on_last_call;
    out["used_on_last_call"] = c.used_on_last_call;
    out["total_builds"] = c.total_builds;
    out["cache_size"] = c.cache_size;
    return out;
  }, "graph=True kernels on CUDA: the last launch's graph nodes, whether it replayed a graph, builds, graphs kept.");
  m.def("cuda_graph_cache_clear", [] {
    nb::gil_scoped_release release;
    cuda_graph_cache_clear();
  }, "Destroys every kept CUDA graph and zeroes the graph counters (qd.reset()).");
  m.def("cuda_graph_fallback_reason", &cuda_graph_fallback_reason,
        "Why the last graph=True launch ran task by task; '' when it replayed a CUDA graph.");
  m.def("cuda_init", [](int device_id) {
    const CudaDeviceInfo& info = cuda_init(device_id);
    nb::dict out;
    out["sm_count"] = info.sm_count;
    out["compute_capability"] = nb::make_tuple(info.compute_capability_major, info.compute_capability_minor);
    out["memory_pools"] = info.memory_pools;
    out["clock_rate_khz"] = info.clock_rate_khz;
    return out;
  }, nb::arg("device_id") = 0, "Makes the device's primary context current; returns its properties.");
  m.def("cuda_array", [](const std::string& dtype, const std::vector<int64_t>& shape,
                         const std::vector<int64_t>& element_shape, int device_id) {
    std::optional<DtypeCode> code = dtype_from_name(dtype);
    if (!code) throw TypeError("Unknown dtype '" + dtype + "'.");
    return create_cuda_array(*code, shape, element_shape, device_id);
  }, nb::arg("dtype"), nb::arg("shape"), nb::arg("element_shape"), nb::arg("device_id") = 0,
     "A zero-filled array in device memory.");
  m.def("cuda_copy", [](const Array& dst, const Array& src, uintptr_t stream) {
    check_copy_compatible(dst.view(), src.view(), "cuda_copy");
    nb::gil_scoped_release release;
    copy_view_cuda(dst.view(), src.view(), stream_of(stream));
  }, nb::arg("dst"), nb::arg("src"), nb::arg("stream") = 0,
     "Copies between host and device arrays in any combination; returns when host memory is done with.");
  m.def("cuda_synchronize", [](uintptr_t stream, int device_id) {
    nb::gil_scoped_release release;
    cuda_synchronize(stream_of(stream), device_id);
  }, nb::arg("stream") = 0, nb::arg("device_id") = 0);
  m.def("cuda_synchronize_device", [](int device_id) {
    nb::gil_scoped_release release;
    cuda_synchronize_device(device_id);
  }, nb::arg("device_id") = 0, "Waits for all work on every stream of the device.");
  m.def("cuda_set_stack_limit", [](size_t bytes, int device_id) { set_cuda_stack_limit(bytes, device_id); },
        nb::arg("bytes"), nb::arg("device_id") = 0, "Sets the stack size of each GPU thread (CU_LIMIT_STACK_SIZE).");
  m.def("cuda_stack_limit", [](int device_id) { return cuda_stack_limit(device_id); }, nb::arg("device_id") = 0,
        "The stack size of each GPU thread, in bytes.");
  m.def("cuda_stream_wait", [](uintptr_t consumer, uintptr_t producer, int device_id) {
    make_stream_wait(stream_of(consumer), stream_of(producer), device_id);
  }, nb::arg("consumer"), nb::arg("producer"), nb::arg("device_id") = 0,
     "Makes consumer wait for the work enqueued on producer so far, without blocking the host.");
  // Streams and events users hold cross as integers too (qd.Stream.handle, qd.Event.handle).
  m.def("cuda_stream_create", [](int device_id) { return reinterpret_cast<uintptr_t>(cuda_stream_create(device_id)); },
        nb::arg("device_id") = 0, "A new blocking CUDA stream's handle.");
  m.def("cuda_stream_destroy", [](uintptr_t stream, int device_id) { cuda_stream_destroy(stream_of(stream), device_id); },
        nb::arg("stream"), nb::arg("device_id") = 0);
  m.def("cuda_event_create", [](int device_id) { return reinterpret_cast<uintptr_t>(cuda_event_create(device_id)); },
        nb::arg("device_id") = 0, "A new CUDA event's handle (timing disabled).");
  m.def("cuda_event_destroy", [](uintptr_t event, int device_id) { cuda_event_destroy(event_of(event), device_id); },
        nb::arg("event"), nb::arg("device_id") = 0);
  m.def("cuda_event_record", [](uintptr_t event, uintptr_t stream, int device_id) {
    cuda_event_record(event_of(event), stream_of(stream), device_id);
  }, nb::arg("event"), nb::arg("stream") = 0, nb::arg("device_id") = 0,
     "Captures the work enqueued on stream so far (0: the legacy default stream).");
  m.def("cuda_stream_wait_event", [](uintptr_t stream, uintptr_t event, int device_id) {
    cuda_stream_wait_event(stream_of(stream), event_of(event), device_id);
  }, nb::arg("stream"), nb::arg("event"), nb::arg("device_id") = 0,
     "Makes later work on stream wait for the event's last record, without blocking the host.");
  m.def("cuda_event_synchronize", [](uintptr_t event, int device_id) {
    nb::gil_scoped_release release;
    cuda_event_synchronize(event_of(event), device_id);
  }, nb::arg("event"), nb::arg("device_id") = 0, "Waits on the host for the event's last record.");
  m.def("cuda_pointer_device", [](uintptr_t pointer) {
    return cuda_pointer_device(reinterpret_cast<const void*>(pointer));
  }, "The CUDA device of a pointer, or None for host memory.");
}

}  // namespace qd::bindings
