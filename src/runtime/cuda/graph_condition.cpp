// src/runtime/cuda/graph_condition.cpp: links qd.graph.do_while's condition kernel with libcudadevrt and loads it.
#include "runtime/cuda/graph_condition.h"

#include <string>
#include <utility>

namespace qd::cuda {
namespace {

std::string driver_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The reason conditional nodes cannot be used with this driver, or "".
std::string driver_refusal(const DriverApi& api) {
  int version = 0;
  if (api.cuDriverGetVersion(&version) != kSuccess) return "cuDriverGetVersion failed";
  if (version < kConditionalNodesDriverVersion) {
    return "the driver is for CUDA " + driver_version_text(version) + "; conditional graph nodes need 12.4";
  }
  bool add_node = api.cuGraphAddNode || api.cuGraphAddNodeWithoutEdges;
  if (!api.cuGraphConditionalHandleCreate || !api.cuLinkCreate || !add_node) {
    return "the driver lacks the conditional graph node or linker entry points";
  }
  return "";
}

// Runs the driver's linker over the image and libcudadevrt; the linked CUBIN is valid until the state is destroyed.
struct Linker {
  const DriverApi& api;
  CUlinkState state = nullptr;
  ~Linker() {
    if (state) api.cuLinkDestroy(state);
  }
};

std::string failed(const DriverApi& api, const char* call, CUresult result) {
  return std::string(call) + " failed: " + error_text(api, result);
}

}  // namespace

ConditionModule load_graph_condition(const CudaConditionImage& image) {
  ConditionModule out;
  const DriverApi& api = driver();
  out.unavailable = driver_refusal(api);
  if (!out.unavailable.empty()) return out;
  if (image.image.empty()) {
    out.unavailable = image.unavailable.empty() ? "no condition kernel was compiled" : image.unavailable;
    return out;
  }
  auto fail = [&out](std::string why) {
    out.unavailable = std::move(why);
    return out;
  };
  Linker linker{api};
  if (CUresult r = api.cuLinkCreate(0, nullptr, nullptr, &linker.state)) return fail(failed(api, "cuLinkCreate", r));
  std::string text;  // PTX goes in NUL-terminated
  void* data = const_cast<char*>(image.image.data());
  size_t bytes = image.image.size();
  if (image.is_ptx) {
    text.assign(image.image.begin(), image.image.end());
    data = text.data();
    bytes = text.size() + 1;
  }
  CUresult r = api.cuLinkAddData(linker.state, image.is_ptx ? kJitInputPtx : kJitInputCubin, data, bytes,
                                 "qd_graph_condition", 0, nullptr, nullptr);
  if (r != kSuccess) return fail(failed(api, "cuLinkAddData(condition kernel)", r));
  if (!image.cudadevrt.empty()) {
    r = api.cuLinkAddFile(linker.state, kJitInputLibrary, image.cudadevrt.c_str(), 0, nullptr, nullptr);
    if (r != kSuccess) return fail(failed(api, ("cuLinkAddFile(" + image.cudadevrt + ")").c_str(), r));
  }
  void* linked = nullptr;
  size_t linked_bytes = 0;
  r = api.cuLinkComplete(linker.state, &linked, &linked_bytes);
  if (r != kSuccess && image.cudadevrt.empty()) {
    return fail(failed(api, "cuLinkComplete(condition kernel)", r) +
                " (no libcudadevrt.a, which holds cudaGraphSetConditional, was found beside NVRTC, in "
                "$CUDA_HOME/lib64 or /usr/local/cuda/lib64: install it with `pip install nvidia-cuda-runtime`, or "
                "name it with QD_CUDADEVRT_PATH)");
  }
  if (r != kSuccess) return fail(failed(api, "cuLinkComplete(condition kernel)", r));
  r = api.cuModuleLoadData(&out.module, linked);
  if (r != kSuccess) return fail(failed(api, "cuModuleLoadData(condition kernel)", r));
  r = api.cuModuleGetFunction(&out.function, out.module, "qd_graph_loop_condition");
  if (r != kSuccess) {
    api.cuModuleUnload(out.module);
    out.module = nullptr;
    out.unavailable = failed(api, "cuModuleGetFunction(qd_graph_loop_condition)", r);
  }
  return out;
}

}  // namespace qd::cuda
