// src/runtime/cuda/stream.cpp: status queries, device initialization, stream synchronization, stream-to-stream
// waits, and the streams and events users hold (qd.create_stream(), qd.create_event()).
#include <mutex>

#include "quadrants/cuda.h"
#include "quadrants/errors.h"
#include "runtime/cuda/device.h"

namespace qd {

std::string cuda_status() { return cuda::driver_load().error; }

int cuda_device_count() { return cuda::driver_load().device_count; }

const CudaDeviceInfo& cuda_init(int device_id) { return cuda::make_current(device_id).info; }

void cuda_synchronize(CUstream stream, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void cuda_synchronize_device(int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

void set_cuda_stack_limit(size_t bytes, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuCtxSetLimit(cuda::kLimitStackSize, bytes),
              "cuCtxSetLimit(CU_LIMIT_STACK_SIZE, " + std::to_string(bytes) + ")");
}

size_t cuda_stack_limit(int device_id) {
  cuda::make_current(device_id);
  size_t bytes = 0;
  cuda::check(cuda::driver().cuCtxGetLimit(&bytes, cuda::kLimitStackSize), "cuCtxGetLimit(CU_LIMIT_STACK_SIZE)");
  return bytes;
}

void make_stream_wait(CUstream consumer, CUstream producer, int device_id) {
  if (consumer == producer) return;
  const cuda::Device& dev = cuda::make_current(device_id);
  const cuda::DriverApi& api = cuda::driver();
  // One event per device suffices: a wait uses the record made just before it, and re-recording
  // the event later does not change what an already enqueued wait waits for.
  static std::mutex mutex;
  static cuda::CUevent events[64] = {};
  QD_ASSERT(dev.info.index < 64, "make_stream_wait(): more than 64 CUDA devices");
  std::lock_guard<std::mutex> lock(mutex);
  cuda::CUevent& event = events[dev.info.index];
  if (!event) cuda::check(api.cuEventCreate(&event, cuda::kEventDisableTiming), "cuEventCreate");
  cuda::check(api.cuEventRecord(event, producer), "cuEventRecord(producer stream)");
  cuda::check(api.cuStreamWaitEvent(consumer, event, 0), "cuStreamWaitEvent(consumer stream)");
}

CUstream cuda_stream_create(int device_id) {
  cuda::make_current(device_id);
  CUstream stream = nullptr;
  cuda::check(cuda::driver().cuStreamCreate(&stream, 0), "cuStreamCreate");  // 0: blocking, as torch's streams
  return stream;
}

void cuda_stream_destroy(CUstream stream, int device_id) {
  cuda::make_current(device_id);
  // The driver lets work still enqueued on the stream finish before it releases the stream.
  cuda::check(cuda::driver().cuStreamDestroy(stream), "cuStreamDestroy");
}

CUevent cuda_event_create(int device_id) {
  cuda::make_current(device_id);
  CUevent event = nullptr;
  cuda::check(cuda::driver().cuEventCreate(&event, cuda::kEventDisableTiming), "cuEventCreate");
  return event;
}

void cuda_event_destroy(CUevent event, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuEventDestroy(event), "cuEventDestroy");
}

void cuda_event_record(CUevent event, CUstream stream, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuEventRecord(event, stream), "cuEventRecord");
}

void cuda_stream_wait_event(CUstream stream, CUevent event, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

void cuda_event_synchronize(CUevent event, int device_id) {
  cuda::make_current(device_id);
  cuda::check(cuda::driver().cuEventSynchronize(event), "cuEventSynchronize");
}

}  // namespace qd
