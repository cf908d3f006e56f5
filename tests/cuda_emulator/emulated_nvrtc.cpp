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
)";

struct Program {
  std::string source;
  std::string name;
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::string log;
  std::string image;  // emulated_image.h's format
  bool compiled = false;
  bool virtual_arch = false;  // compiled for compute_XX: PTX only, no CUBIN
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
  const char* cxx = std::getenv("CXX");
  std::string command = std::string(cxx && *cxx ? cxx : "c++") +
                        " -std=c++17 -O1 -w -fPIC -shared -nostdinc -x c++ -I" + dir + " -include " + dir +
                        "/emulated_prelude.h " + source + " -o " + dir + "/module.so > " + dir + "/log.txt 2>&1";
  int status = ok ? std::system(command.c_str()) : -1;
  std::string library;
  read_all(dir + "/log.txt", &program.log);
  bool built = status == 0 && read_all(dir + "/module.so", &library);
  std::system(("rm -rf " + dir).c_str());
  if (!built) return kCompilation;
  EmulatedImageHeader header{};
  std::memcpy(header.magic, kEmulatedImageMagic, sizeof header.magic);
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
