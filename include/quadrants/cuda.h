// include/quadrants/cuda.h: the CUDA runtime: driver status, device arrays, copies, streams and kernel launch.
//
// Everything here works without a GPU in the sense that it fails cleanly: cuda_status() says why
// CUDA is unusable, and every other call then throws CudaError with that reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "quadrants/array.h"
#include "quadrants/dtype.h"
#include "quadrants/kernel_abi.h"

// The driver's stream handle, declared exactly as cuda.h does so that both headers can coexist.
// A null stream is the context's legacy default stream.
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;

namespace qd {

struct CudaCompiledKernel;  // include/quadrants/cuda_jit.h

// A failed driver call (the message names the call and the CUDA error), or CUDA being unavailable.
struct CudaError : std::runtime_error {
  CudaError(const std::string& message, int code) : std::runtime_error(message), code(code) {}
  int code;  // the CUresult; 0 when CUDA is unavailable rather than failing
};

// "" when CUDA is usable; otherwise what is missing, starting with one of "no driver library",
// "cuInit failed (...)" or "no device". Never throws.
std::string cuda_status();

// Devices the driver sees; 0 when CUDA is unusable.
int cuda_device_count();

struct CudaDeviceInfo {
  int index = 0;
  int sm_count = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  bool memory_pools = false;  // cuMemAllocAsync is available on this device
  int clock_rate_khz = 0;     // the nominal SM clock (qd.clock_freq_hz()), not the current boosted one
};

// Retains device_id's primary context (the one torch and CuPy use), makes it current on the
// calling thread and returns the device's properties. ValueError for a device that does not exist.
const CudaDeviceInfo& cuda_init(int device_id);

// Zero-filled device memory of dtype and shape + element_shape, freed when the last user is gone.
std::shared_ptr<Array> create_cuda_array(DtypeCode dtype, const std::vector<int64_t>& shape,
                                         const std::vector<int64_t>& element_shape, int device_id);

// Copies src into dst (same shapes, same_kind conversion, as qd::copy_view) for any mix of host and
// CUDA views, ordered on stream. Returns after the host may read dst (when dst is on the host) or
// reuse src (when src is on the host); device-to-device copies are only enqueued.
void copy_view_cuda(const ArrayView& dst, const ArrayView& src, CUstream stream);

// Waits on the host until everything enqueued on stream (of device_id's primary context) is done.
void cuda_synchronize(CUstream stream, int device_id = 0);

// Waits on the host until all work on every stream of device_id's primary context is done (qd.sync()).
void cuda_synchronize_device(int device_id = 0);

// The stack size of each GPU thread of device_id's primary context, in bytes (qd.init(cuda_stack_limit=)):
// deep @qd.real_func recursion needs more than the driver's default of about 1 KB.
void set_cuda_stack_limit(size_t bytes, int device_id = 0);
size_t cuda_stack_limit(int device_id = 0);

// Makes later work on consumer wait for the work enqueued on producer so far, with an event; the
// host never blocks (the DLPack stream contract). A no-op when both are the same stream.
void make_stream_wait(CUstream consumer, CUstream producer, int device_id = 0);

// Streams and events the user holds (qd.create_stream(), qd.create_event()): created on device_id's primary
// context, destroyed by the same calls. A stream is a blocking one (it orders itself after the legacy default
// stream, as torch's and CuPy's do); an event is timing-free. event_record captures the work enqueued on
// stream so far; stream_wait_event makes later work on stream wait for the last record; event_synchronize
// waits on the host for it. A null stream is the legacy default stream.
CUstream cuda_stream_create(int device_id = 0);
void cuda_stream_destroy(CUstream stream, int device_id = 0);
CUevent cuda_event_create(int device_id = 0);
void cuda_event_destroy(CUevent event, int device_id = 0);
void cuda_event_record(CUevent event, CUstream stream, int device_id = 0);
void cuda_stream_wait_event(CUstream stream, CUevent event, int device_id = 0);
void cuda_event_synchronize(CUevent event, int device_id = 0);

// The device a pointer's memory lives on, or nothing for host memory the driver does not know.
std::optional<int> cuda_pointer_device(const void* pointer);

// Runs a compiled kernel's tasks in order on stream: args (num_args QdArgs in host memory, whose
// arrays point to device memory) are copied to the device, and the module is loaded once per device
// and kept while the kernel lives. When the kernel returns values or was compiled in debug mode,
// waits for it and raises its errors as run_entry does (IndexError naming arg_names[i],
// AssertionError with the assert message); the returned values come back in order, each in a
// QdArg's scalar union (none for a kernel without return values). Otherwise returns as soon as the
// work is enqueued. A fault in the kernel is a CudaError naming it.
// A launch on any other stream is ordered both ways with the legacy default stream, on which copies,
// host reads and DLPack exports order themselves: it starts after the copies enqueued before it, and
// they see its writes.
std::vector<QdArg> launch_cuda(const std::shared_ptr<const CudaCompiledKernel>& kernel, const QdArg* args,
                               int num_args, CUstream stream, int device_id,
                               const std::vector<std::string>& arg_names);

// @qd.kernel(graph=True) on CUDA (src/runtime/cuda/graph.h): upstream's graph counters. nodes_on_last_call: the
// nodes of the graph the last CUDA launch replayed (0 for a launch without one); used_on_last_call: whether it
// replayed one; total_builds: graphs built since the last cuda_graph_cache_clear(); cache_size: the graphs kept
// (one per loaded graph kernel and device).
struct CudaGraphCounters {
  int nodes_on_last_call = 0;
  bool used_on_last_call = false;
  int total_builds = 0;
  int cache_size = 0;
};
CudaGraphCounters cuda_graph_counters();

// Destroys every kept graph (after the work on their devices is done) and zeroes the counters (qd.reset()).
void cuda_graph_cache_clear();

// Why the last graph=True launch ran its tasks one by one instead of replaying a graph; "" when it replayed one.
std::string cuda_graph_fallback_reason();

}  // namespace qd
