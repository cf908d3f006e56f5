// src/jit/nvrtc.cpp: finds libnvrtc with dlopen, binds the few entry points we use, and runs compilations.
#include "jit/nvrtc.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <memory>

#include "quadrants/errors.h"

namespace qd::jit {
namespace {

// NVRTC ships no C library headers; kernel_abi.h needs only the fixed-width integers. CUDA's
// device ABI is LP64, and `long long` makes int64_t match the atomicAdd/atomicMin overloads.
constexpr const char* kStdintHeader = R"(// stdint.h handed to NVRTC by quadrants
#pragma once
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
)";

std::atomic<int> g_nvrtc_runs{0};

// nvrtcResult is an enum whose success value is 0; nvrtcProgram is an opaque pointer.
struct NvrtcApi {
  void* handle = nullptr;
  std::string path;
  std::vector<std::string> searched;
  int (*version)(int*, int*) = nullptr;
  int (*num_supported_archs)(int*) = nullptr;
  int (*supported_archs)(int*) = nullptr;
  int (*create_program)(void**, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*destroy_program)(void**) = nullptr;
  int (*compile_program)(void*, int, const char* const*) = nullptr;
  int (*log_size)(void*, size_t*) = nullptr;
  int (*log)(void*, char*) = nullptr;
  int (*cubin_size)(void*, size_t*) = nullptr;
  int (*cubin)(void*, char*) = nullptr;
  int (*ptx_size)(void*, size_t*) = nullptr;
  int (*ptx)(void*, char*) = nullptr;
  const char* (*error_string)(int) = nullptr;
};

const char* const kLibraryNames[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};

std::string parent_folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The pip package `nvidia-cuda-nvrtc` (cu13 layout, then cu12's) in the site-packages that holds
// the module this code is linked into: <site-packages>/quadrants/runtime/_core*.so.
std::vector<std::string> pip_package_folders() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&nvrtc_loaded), &info) || !info.dli_fname) return {};
  std::string site_packages = parent_folder(parent_folder(parent_folder(info.dli_fname)));
  return {site_packages + "/nvidia/cu13/lib", site_packages + "/nvidia/cuda_nvrtc/lib"};
}

// $QD_NVRTC_PATH (a file or a folder) when set, and nothing else, so a user's choice is never
// overridden; otherwise the loader's default path, $CUDA_HOME/lib64, /usr/local/cuda/lib64, and the
// pip package beside the quadrants package.
std::vector<std::string> candidate_paths() {
  std::vector<std::string> folders, paths;
  const char* explicit_path = std::getenv("QD_NVRTC_PATH");
  if (explicit_path && *explicit_path) {
    paths.push_back(explicit_path);
    for (const char* name : kLibraryNames) paths.push_back(std::string(explicit_path) + "/" + name);
    return paths;
  }
  for (const char* name : kLibraryNames) paths.push_back(name);
  const char* cuda_home = std::getenv("CUDA_HOME");
  if (cuda_home && *cuda_home) folders.push_back(std::string(cuda_home) + "/lib64");
  folders.push_back("/usr/local/cuda/lib64");
  for (const std::string& folder : pip_package_folders()) folders.push_back(folder);
  for (const std::string& folder : folders) {
    for (const char* name : kLibraryNames) paths.push_back(folder + "/" + name);
  }
  return paths;
}

template <class F>
void bind(void* handle, const char* symbol, F* out, bool* ok) {
  *out = reinterpret_cast<F>(::dlsym(handle, symbol));
  *ok = *ok && *out != nullptr;
}

bool bind_all(NvrtcApi* api) {
  bool ok = true;
  void* h = api->handle;
  bind(h, "nvrtcVersion", &api->version, &ok);
  bind(h, "nvrtcGetNumSupportedArchs", &api->num_supported_archs, &ok);
  bind(h, "nvrtcGetSupportedArchs", &api->supported_archs, &ok);
  bind(h, "nvrtcCreateProgram", &api->create_program, &ok);
  bind(h, "nvrtcDestroyProgram", &api->destroy_program, &ok);
  bind(h, "nvrtcCompileProgram", &api->compile_program, &ok);
  bind(h, "nvrtcGetProgramLogSize", &api->log_size, &ok);
  bind(h, "nvrtcGetProgramLog", &api->log, &ok);
  bind(h, "nvrtcGetCUBINSize", &api->cubin_size, &ok);
  bind(h, "nvrtcGetCUBIN", &api->cubin, &ok);
  bind(h, "nvrtcGetPTXSize", &api->ptx_size, &ok);
  bind(h, "nvrtcGetPTX", &api->ptx, &ok);
  bind(h, "nvrtcGetErrorString", &api->error_string, &ok);
  return ok;
}

// Never unloaded: compiled images do not depend on it, and unloading at exit gains nothing.
const NvrtcApi& api() {
  static const NvrtcApi loaded = [] {
    NvrtcApi result;
    for (const std::string& path : candidate_paths()) {
      result.searched.push_back(path);
      result.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!result.handle) continue;
      if (bind_all(&result)) {
        result.path = path;
        return result;
      }
      ::dlclose(result.handle);
      result.handle = nullptr;
    }
    return result;
  }();
  return loaded;
}

const NvrtcApi& required_api() {
  const NvrtcApi& nvrtc = api();
  if (nvrtc.handle) return nvrtc;
  std::string where;
  for (const std::string& path : nvrtc.searched) where += "\n  " + path;
  throw CompileError(
      "NVRTC (libnvrtc.so) was not found, so CUDA kernels cannot be compiled. Install it with "
      "`pip install nvidia-cuda-nvrtc`, or set QD_NVRTC_PATH to the folder that holds libnvrtc.so. Looked in:" +
      where);
}

std::string program_log(const NvrtcApi& nvrtc, void* program) {
  size_t size = 0;
  if (nvrtc.log_size(program, &size) != 0 || size == 0) return "";
  std::string text(size, '\0');
  nvrtc.log(program, text.data());
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  return text;
}

std::vector<char> program_image(const NvrtcApi& nvrtc, void* program, bool ptx) {
  size_t size = 0;
  int status = ptx ? nvrtc.ptx_size(program, &size) : nvrtc.cubin_size(program, &size);
  std::vector<char> image(status == 0 ? size : 0);
  if (!image.empty()) status = ptx ? nvrtc.ptx(program, image.data()) : nvrtc.cubin(program, image.data());
  QD_ASSERT(status == 0 && !image.empty(), "nvrtc_compile(): NVRTC compiled the program but gave no image");
  return image;
}

}  // namespace

bool nvrtc_loaded() { return api().handle != nullptr; }

int nvrtc_runs() { return g_nvrtc_runs.load(); }

std::string nvrtc_library_path() { return api().path; }

std::string nvrtc_identity() {
  const NvrtcApi& nvrtc = required_api();
  int major = 0, minor = 0;
  nvrtc.version(&major, &minor);
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + "\n" + kStdintHeader;
}

std::string nvrtc_target(int cc_major, int cc_minor) {
  const NvrtcApi& nvrtc = required_api();
  int count = 0;
  nvrtc.num_supported_archs(&count);
  std::vector<int> archs(count > 0 ? count : 0);
  if (count > 0) nvrtc.supported_archs(archs.data());
  int wanted = cc_major * 10 + cc_minor, best = 0;
  for (int arch : archs) {
    if (arch == wanted) return "sm_" + std::to_string(arch);
    if (arch < wanted && arch > best) best = arch;
  }
  if (best > 0) return "compute_" + std::to_string(best);
  std::string supported;
  for (int arch : archs) supported += (supported.empty() ? "" : ", ") + std::to_string(arch);
  throw CompileError("NVRTC at " + nvrtc.path + " cannot compile for compute capability " + std::to_string(cc_major) +
                     "." + std::to_string(cc_minor) + "; it supports the architectures " + supported +
                     ". Use an NVRTC that matches the GPU.");
}

NvrtcImage nvrtc_compile(const std::string& program_name, const std::string& source, const std::string& target,
                         const std::vector<std::string>& options) {
  const NvrtcApi& nvrtc = required_api();
  const char* header_texts[] = {kStdintHeader};
  const char* header_names[] = {"stdint.h"};
  void* program = nullptr;
  int status = nvrtc.create_program(&program, source.c_str(), program_name.c_str(), 1, header_texts, header_names);
  if (status != 0) throw CompileError("NVRTC could not create a program: " + std::string(nvrtc.error_string(status)));
  std::unique_ptr<void*, void (*)(void**)> guard(&program, [](void** p) { api().destroy_program(p); });

  std::vector<std::string> all = {"--gpu-architecture=" + target};
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& option : all) argv.push_back(option.c_str());
  ++g_nvrtc_runs;
  status = nvrtc.compile_program(program, static_cast<int>(argv.size()), argv.data());
  if (status != 0) {
    std::string joined;
    for (const std::string& option : all) joined += " " + option;
    throw CompileError("NVRTC (" + nvrtc.path + ") rejected " + program_name + " (" + nvrtc.error_string(status) +
                       "; options:" + joined + "). NVRTC log:\n" + program_log(nvrtc, program));
  }
  NvrtcImage result;
  result.is_ptx = target.rfind("compute_", 0) == 0;
  result.image = program_image(nvrtc, program, result.is_ptx);
  return result;
}

}  // namespace qd::jit
