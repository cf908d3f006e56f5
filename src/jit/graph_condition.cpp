// src/jit/graph_condition.cpp: the condition kernel of qd.graph.do_while's WHILE nodes, compiled once per architecture.
#include "jit/graph_condition.h"

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "jit/nvrtc.h"
#include "quadrants/errors.h"

namespace qd::jit {
namespace {

// cudaGraphSetConditional is declared as cuda_device_runtime_api.h declares it (C linkage; its handle type is
// cudaGraphConditionalHandle, an unsigned long long), so no CUDA header is needed. It lives in libcudadevrt,
// hence relocatable code and a link. A null returned_flag or error_flag is a kernel without that flag.
constexpr const char* kSource = R"(// quadrants: qd.graph.do_while's condition kernel
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);

extern "C" __global__ void qd_graph_loop_condition(unsigned long long handle, int* const* flag_slot,
                                                   const int* returned_flag, const int* error_flag) {
  unsigned int again = **flag_slot != 0 ? 1u : 0u;
  if (returned_flag != 0 && *returned_flag != 0) again = 0u;
  if (error_flag != 0 && *error_flag != 0) again = 0u;
  cudaGraphSetConditional(handle, again);
}
)";

bool is_file(const std::string& path) {
  struct stat info {};
  return !path.empty() && ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

CudaConditionImage compile_uncached(int cc_major, int cc_minor) {
  CudaConditionImage result;
  try {
    std::string target = nvrtc_target(cc_major, cc_minor);
    NvrtcImage image = nvrtc_compile("qd_graph_condition.cu", kSource, target,
                                     {"--std=c++17", "--relocatable-device-code=true"});
    result.image = std::move(image.image);
    result.is_ptx = image.is_ptx;
  } catch (const std::exception& e) {
    result.unavailable = std::string("the condition kernel did not compile: ") + e.what();
    return result;
  }
  // Drivers of CUDA 13 resolve cudaGraphSetConditional without it; older ones need it (the link then fails).
  result.cudadevrt = cudadevrt_path();
  return result;
}

}  // namespace

const char* graph_condition_source() { return kSource; }

std::string cudadevrt_path() {
  const char* named = std::getenv("QD_CUDADEVRT_PATH");
  if (named && *named) return is_file(named) ? named : "";
  std::vector<std::string> folders;
  std::string nvrtc = nvrtc_library_path();
  if (!nvrtc.empty()) {
    folders.push_back(folder_of(nvrtc));  // the cu13 wheels share nvidia/cu13/lib
    folders.push_back(folder_of(folder_of(folder_of(nvrtc))) + "/cuda_runtime/lib");  // cu12's nvidia/cuda_*/lib
  }
  const char* cuda_home = std::getenv("CUDA_HOME");
  if (cuda_home && *cuda_home) folders.push_back(std::string(cuda_home) + "/lib64");
  folders.push_back("/usr/local/cuda/lib64");
  for (const std::string& folder : folders) {
    if (is_file(folder + "/libcudadevrt.a")) return folder + "/libcudadevrt.a";
  }
  return "";
}

CudaConditionImage compile_graph_condition(int cc_major, int cc_minor) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, CudaConditionImage> compiled;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(cc_major, cc_minor);
  auto it = compiled.find(key);
  if (it == compiled.end()) it = compiled.emplace(key, compile_uncached(cc_major, cc_minor)).first;
  return it->second;
}

}  // namespace qd::jit
