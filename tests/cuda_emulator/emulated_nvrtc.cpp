// tests/cuda_emulator/emulated_nvrtc.cpp: a stand-in for libnvrtc that builds CUDA C++ into host code for the emulated driver.
//
// Loaded through QD_NVRTC_PATH. The program is compiled by the system C++ compiler ($CXX, else c++)
// with -nostdinc, so, as under NVRTC, only the headers handed to nvrtcCreateProgram are found; a
// prelude supplies what NVRTC predefines (__global__, blockIdx, ...). __CUDACC__ stays undefined, so
// the runtime header's portable branches run (real NVRTC still compile-checks the CUDA ones).
// The "CUBIN" is emulated_image.h's wrapper around the shared object. Its version is 99.0, so its
// images never share an on-disk cache entry with a real NVRTC's.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "emulated_image.h"

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidInput = 3;
constexpr int kInvalidProgram = 4;
constexpr int kInvalidOption = 5;
constexpr int kCompilation = 6;

constexpr int kSupportedArchs[] = {75, 80, 86, 87, 89, 90};

constexpr const char* kPrelude = R"(// what NVRTC predefines, for a host compiler (emulated NVRTC)
struct EmulatedDim3 { unsigned x, y, z; };
extern "C" { EmulatedDim3 threadIdx, blockIdx, blockDim, gridDim; }
#define __global__ __attribute__((visibility("default")))
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
static inline float __int_as_float(int v) { float f; __builtin_memcpy(&f, &v, 4); return f; }
static inline double __longlong_as_double(long long v) { double d; __builtin_memcpy(&d, &v, 8); return d; }
// Every address is host memory here, where atomics work on a thread's locals too.
static inline unsigned __isLocal(const void*) { return 0; }
// Shared memory: one copy, reused by the blocks the driver runs one after another (never zeroed
// between them, as on a GPU, where it starts with whatever was there).
#define __shared__ static
// Block and warp intrinsics, each one call into the driver's fiber scheduler (emulated_simt.cpp),
// which checks masks and that a warp or block meets at one intrinsic. Op codes: qd_simt.h's.
extern "C" {
unsigned long long (*qd_emulated_simt)(int, unsigned, unsigned long long, int, const char*);
int qd_emulated_uses_simt = QD_EMULATED_USES_SIMT;
}
static inline int qd_emu_lane() {
  return (int)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31);
}
template <class T> static inline unsigned long long qd_emu_bits(T v) {
  unsigned long long b = 0; __builtin_memcpy(&b, &v, sizeof(T)); return b;
}
template <class T> static inline T qd_emu_shfl(unsigned mask, T v, int lane, const char* name) {
  unsigned long long b = qd_emulated_simt(2, mask, qd_emu_bits(v), lane, name);
  T out; __builtin_memcpy(&out, &b, sizeof(T)); return out;
}
// The first lane of the caller's width-lane segment; negative for a width that is not a power of two up
// to 32 (the shuffle then passes lane -1, which the driver rejects).
static inline int qd_emu_base(int width) {
  return (width > 0 && width <= 32 && !(width & (width - 1))) ? (qd_emu_lane() & ~(width - 1)) : -1000;
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  int base = qd_emu_base(width);
  return qd_emu_shfl(mask, v, base < 0 ? -1 : base + (src & (width - 1)), "__shfl_sync");
}
template <class T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  int base = qd_emu_base(width), src = qd_emu_lane() - (int)delta;
  return qd_emu_shfl(mask, v, base < 0 ? -1 : (src < base ? qd_emu_lane() : src), "__shfl_up_sync");
}
template <class T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  int base = qd_emu_base(width), src = qd_emu_lane() + (int)delta;
  return qd_emu_shfl(mask, v, base < 0 ? -1 : (src >= base + width ? qd_emu_lane() : src), "__shfl_down_sync");
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) {
  int base = qd_emu_base(width), src = qd_emu_lane() ^ m;
  return qd_emu_shfl(mask, v, base < 0 ? -1 : (src >= base + width ? qd_emu_lane() : src), "__shfl_xor_sync");
}
static inline unsigned __ballot_sync(unsigned mask, int p) {
  return (unsigned)qd_emulated_simt(3, mask, p != 0, 0, "__ballot_sync") & mask;
}
static inline int __all_sync(unsigned mask, int p) { return (int)qd_emulated_simt(4, mask, p != 0, 0, "__all_sync"); }
static inline int __any_sync(unsigned mask, int p) { return (int)qd_emulated_simt(5, mask, p != 0, 0, "__any_sync"); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) { qd_emulated_simt(1, mask, 0, 0, "__syncwarp"); }
static inline void __syncthreads() { qd_emulated_simt(0, 0, 0, 0, "__syncthreads"); }
static inline int __syncthreads_and(int p) { return (int)qd_emulated_simt(6, 0, p != 0, 0, "__syncthreads_and"); }
static inline int __syncthreads_or(int p) { return (int)qd_emulated_simt(7, 0, p != 0, 0, "__syncthreads_or"); }
static inline int __syncthreads_count(int p) { return (int)qd_emulated_simt(8, 0, p != 0, 0, "__syncthreads_count"); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// libcudadevrt's cudaGraphSetConditional, for relocatable code that calls it: one call into the driver's graphs.
// Weak, as the source declares it again (as cuda_device_runtime_api.h does).
#if QD_EMULATED_DEVRT
extern "C" { void (*qd_emulated_set_conditional)(unsigned long long, unsigned int); }
extern "C" __attribute__((weak)) void cudaGraphSetConditional(unsigned long long handle, unsigned int value) {
  qd_emulated_set_conditional(handle, value);
}
#endif
)";

// The intrinsics that make the driver run a module's blocks as fibers (the others run a thread at a time).
constexpr const char* kSimtIntrinsics[] = {"__syncthreads", "__shfl_", "__ballot_sync", "__all_sync", "__any_sync",
                                           "__syncwarp"};

struct Program {
  std::string source;
  std::string name;
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::string log;
  std::string image;  // emulated_image.h's format
  bool compiled = false;
  bool virtual_arch = false;  // compiled for compute_XX: PTX only, no CUBIN
  bool fmad = true;           // --fmad=false: no contraction of a*b+c into an FMA
  bool relocatable = false;   // --relocatable-device-code=true: may call device functions of other images
};

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

bool read_all(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

// Parses NVRTC options; false (with the log set) for an option real NVRTC would not take.
bool read_options(Program& program, int count, const char* const* options) {
  bool arch_seen = false;
  for (int i = 0; i < count; ++i) {
    std::string option = options[i] ? options[i] : "";
    std::string arch;
    if (option.rfind("--gpu-architecture=", 0) == 0) arch = option.substr(19);
    if (option.rfind("-arch=", 0) == 0) arch = option.substr(6);
    if (!arch.empty()) {
      bool real = arch.rfind("sm_", 0) == 0, virt = arch.rfind("compute_", 0) == 0;
      int number = std::atoi(arch.c_str() + (real ? 3 : 8));
      bool known = false;
      for (int supported : kSupportedArchs) known = known || supported == number;
      if ((!real && !virt) || !known) {
        program.log = "nvrtc: error: invalid value for --gpu-architecture (-arch): " + arch + "\n";
        return false;
      }
      program.virtual_arch = virt;
      arch_seen = true;
      continue;
    }
    if (option == "--std=c++17" || option == "-std=c++17" || option == "--use_fast_math" ||
        option == "-use_fast_math" || option == "-lineinfo" || option == "--generate-line-info") {
      continue;
    }
    if (option == "--relocatable-device-code=true" || option == "-rdc=true" ||
        option == "--relocatable-device-code=false" || option == "-rdc=false") {
      program.relocatable = option.find("=true") != std::string::npos;
      continue;
    }
    if (option == "--fmad=false" || option == "--fmad=true" || option == "-fmad=false" || option == "-fmad=true") {
      program.fmad = option.find("=true") != std::string::npos;
      continue;
    }
    program.log = "nvrtc: error: unrecognized option " + option + "\n";
    return false;
  }
  if (!arch_seen) program.virtual_arch = true;  // NVRTC's default target is a virtual architecture
  return true;
}

int run_compiler(Program& program) {
  char folder[] = "/tmp/qd-emulated-nvrtc-XXXXXX";
  if (!mkdtemp(folder)) {
    program.log = "emulated nvrtc: cannot make a temporary folder\n";
    return kCompilation;
  }
  std::string dir = folder;
  std::string source = dir + "/" + (program.name.empty() ? "program.cu" : program.name);
  bool ok = write_text(dir + "/emulated_prelude.h", kPrelude) && write_text(source, program.source);
  for (const auto& [name, text] : program.headers) ok = ok && write_text(dir + "/" + name, text);
  bool simt = false;
  for (const char* name : kSimtIntrinsics) simt = simt || program.source.find(name) != std::string::npos;
  // libcudadevrt's functions are external calls: whole-program code cannot make them, as under real NVRTC.
  bool devrt = program.source.find("cudaGraphSetConditional") != std::string::npos;
  if (devrt && !program.relocatable) {
    program.log = program.name + ": error: External calls are not supported (found non-inlined call to "
                  "cudaGraphSetConditional); compile with --relocatable-device-code=true and link libcudadevrt\n";
    std::system(("rm -rf " + dir).c_str());
    return kCompilation;
  }
  const char* cxx = std::getenv("CXX");
  std::string command = std::string(cxx && *cxx ? cxx : "c++") +
                        " -std=c++17 -O1 -w -fPIC -shared -nostdinc -x c++" +
                        (program.fmad ? "" : " -ffp-contract=off") + " -DQD_EMULATED_USES_SIMT=" +
                        (simt ? "1" : "0") + " -DQD_EMULATED_DEVRT=" + (devrt ? "1" : "0") + " -I" + dir + " -include " + dir +
                        "/emulated_prelude.h " + source + " -o " + dir + "/module.so > " + dir + "/log.txt 2>&1";
  int status = ok ? std::system(command.c_str()) : -1;
  std::string library;
  read_all(dir + "/log.txt", &program.log);
  bool built = status == 0 && read_all(dir + "/module.so", &library);
  std::system(("rm -rf " + dir).c_str());
  if (!built) return kCompilation;
  EmulatedImageHeader header{};
  std::memcpy(header.magic, devrt ? kEmulatedRelocatableMagic : kEmulatedImageMagic, sizeof header.magic);
  header.library_bytes = library.size();
  program.image.assign(reinterpret_cast<const char*>(&header), sizeof header);
  program.image += library;
  program.compiled = true;
  return kSuccess;
}

}  // namespace

extern "C" {

const char* nvrtcGetErrorString(int result) {
  switch (result) {
    case kSuccess: return "NVRTC_SUCCESS";
    case kInvalidInput: return "NVRTC_ERROR_INVALID_INPUT";
    case kInvalidProgram: return "NVRTC_ERROR_INVALID_PROGRAM";
    case kInvalidOption: return "NVRTC_ERROR_INVALID_OPTION";
    case kCompilation: return "NVRTC_ERROR_COMPILATION";
    default: return "NVRTC_ERROR unknown";
  }
}

int nvrtcVersion(int* major, int* minor) {
  if (!major || !minor) return kInvalidInput;
  *major = 99;
  *minor = 0;
  return kSuccess;
}

int nvrtcGetNumSupportedArchs(int* count) {
  if (!count) return kInvalidInput;
  *count = static_cast<int>(sizeof kSupportedArchs / sizeof kSupportedArchs[0]);
  return kSuccess;
}

int nvrtcGetSupportedArchs(int* archs) {
  if (!archs) return kInvalidInput;
  for (int arch : kSupportedArchs) *archs++ = arch;
  return kSuccess;
}

int nvrtcCreateProgram(Program** out, const char* source, const char* name, int num_headers,
                       const char* const* headers, const char* const* include_names) {
  if (!out || !source || num_headers < 0) return kInvalidInput;
  if (num_headers > 0 && (!headers || !include_names)) return kInvalidInput;
  auto* program = new Program;
  program->source = source;
  program->name = name ? name : "";
  if (program->name.find('/') != std::string::npos) program->name = "program.cu";
  for (int i = 0; i < num_headers; ++i) program->headers.emplace_back(include_names[i], headers[i]);
  *out = program;
  return kSuccess;
}

int nvrtcDestroyProgram(Program** program) {
  if (!program || !*program) return kInvalidProgram;
  delete *program;
  *program = nullptr;
  return kSuccess;
}

int nvrtcCompileProgram(Program* program, int count, const char* const* options) {
  if (!program) return kInvalidProgram;
  if (count < 0 || (count > 0 && !options)) return kInvalidInput;
  if (!read_options(*program, count, options)) return kInvalidOption;
  return run_compiler(*program);
}

// Sizes count the terminating NUL, as NVRTC's do.
int nvrtcGetProgramLogSize(Program* program, size_t* size) {
  if (!program) return kInvalidProgram;
  if (!size) return kInvalidInput;
  *size = program->log.size() + 1;
  return kSuccess;
}

int nvrtcGetProgramLog(Program* program, char* log) {
  if (!program) return kInvalidProgram;
  if (!log) return kInvalidInput;
  std::memcpy(log, program->log.c_str(), program->log.size() + 1);
  return kSuccess;
}

int nvrtcGetCUBINSize(Program* program, size_t* size) {
  if (!program) return kInvalidProgram;
  if (!size || !program->compiled || program->virtual_arch) return kInvalidInput;
  *size = program->image.size();
  return kSuccess;
}

int nvrtcGetCUBIN(Program* program, char* cubin) {
  if (!program) return kInvalidProgram;
  if (!cubin || !program->compiled || program->virtual_arch) return kInvalidInput;
  std::memcpy(cubin, program->image.data(), program->image.size());
  return kSuccess;
}

int nvrtcGetPTXSize(Program* program, size_t* size) {
  if (!program) return kInvalidProgram;
  if (!size || !program->compiled) return kInvalidInput;
  *size = program->image.size() + 1;
  return kSuccess;
}

int nvrtcGetPTX(Program* program, char* ptx) {
  if (!program) return kInvalidProgram;
  if (!ptx || !program->compiled) return kInvalidInput;
  std::memcpy(ptx, program->image.data(), program->image.size());
  ptx[program->image.size()] = '\0';
  return kSuccess;
}

}  // extern "C"
