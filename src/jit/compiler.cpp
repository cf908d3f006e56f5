// src/jit/compiler.cpp: the kernel cache: key, atomic writes, compiler invocation and dlopen.
#include "jit/compiler.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <sstream>

#include "jit/hash.h"
#include "quadrants/errors.h"

namespace qd {
const std::map<std::string, std::string>& embedded_headers();
}

namespace qd::jit {
namespace {

// Bump when anything that shapes generated code changes outside the generated source itself.
constexpr const char* kVersion = "quadrants-jit-1";

std::atomic<int> g_compiler_runs{0};

std::string compiler_command() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command; returns its exit status and fills *output with stdout and stderr.
int run_command(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) output->append(buf, n);
  return ::pclose(pipe);
}

// The compiler binary's resolved path, size and mtime: enough to notice an upgrade without running it.
std::string compiler_fingerprint(const std::string& command) {
  std::string program = command.substr(0, command.find(' '));
  std::string path = program;
  if (program.find('/') == std::string::npos) {
    const char* env_path = std::getenv("PATH");
    std::stringstream dirs(env_path ? env_path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (::access((dir + "/" + program).c_str(), X_OK) == 0) {
        path = dir + "/" + program;
        break;
      }
    }
  }
  char resolved[4096];
  if (::realpath(path.c_str(), resolved)) path = resolved;
  struct stat info {};
  ::stat(path.c_str(), &info);
  return command + "|" + path + "|" + std::to_string(info.st_size) + "|" + std::to_string(info.st_mtime);
}

std::mutex identity_mutex;  // guards compiler_identity's table
// A forked child does not have the thread that may have held the lock (running `$CXX --version`).
[[maybe_unused]] const int identity_fork_handler =
    pthread_atfork(nullptr, nullptr, [] { new (&identity_mutex) std::mutex(); });

// `$CXX --version`, computed once per process and per compiler; also kept on disk under the
// binary's fingerprint, so a warm process never starts the compiler at all.
std::string compiler_identity(const std::string& command, const std::string& dir) {
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(identity_mutex);
  auto found = known.find(command);
  if (found != known.end()) return found->second;
  std::string fingerprint = compiler_fingerprint(command);
  std::string path = dir + "/compiler-" + Hasher().add(fingerprint).hex() + ".txt";
  std::string identity;
  if (!read_file(path, &identity)) {
    run_command(command + " --version", &identity);
    write_file_atomically(path, identity);
  }
  return known[command] = identity;
}

// The host CPU, since -march=native makes a library specific to it (a shared cache may span machines).
const std::string& cpu_identity() {
  static const std::string identity = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(in, line) && (model.empty() || flags.empty())) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
    }
    return model + "\n" + flags;
  }();
  return identity;
}

std::string compile_flags(bool fast_math) {
  // No -fwrapv: signed overflow stays undefined, as in C, CUDA and LLVM's nsw arithmetic. Wrapping
  // i32 index arithmetic cannot be widened to 64-bit addressing, and -fwrapv made a 2D stencil 2.7x
  // slower by stopping vectorization (docs/IR.md states the rule).
  std::string flags = "-O3 -march=native -std=c++17 -shared -fPIC -fno-exceptions -fno-rtti -pipe";
  // -ffast-math's parts, without its name: given -ffast-math, GCC < 13 links crtfastmath.o even
  // into shared libraries, which sets flush-to-zero for the whole process when the kernel loads.
  if (fast_math) {
    flags += " -fno-math-errno -ffinite-math-only -fno-signed-zeros -fno-trapping-math -fassociative-math"
             " -freciprocal-math -fno-rounding-math -fcx-limited-range";
  }
  return flags;
}

LoadedLibrary open_library(const std::string& path) {
  void* raw = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!raw) return {};
  LoadedLibrary lib;
  lib.handle = std::shared_ptr<void>(raw, [](void* h) { ::dlclose(h); });
  lib.entry = reinterpret_cast<QdKernelEntry>(::dlsym(raw, QD_KERNEL_ENTRY_SYMBOL));
  lib.library_path = path;
  return lib;
}

}  // namespace

int compiler_runs() { return g_compiler_runs.load(); }

std::string cache_dir() {
  const char* dir = std::getenv("QD_CACHE_DIR");
  if (dir && *dir) return dir;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/quadrants";
}

void make_dirs(const std::string& path) {
  for (size_t pos = 1; pos != std::string::npos; pos = path.find('/', pos + 1)) {
    ::mkdir(path.substr(0, pos).c_str(), 0755);
  }
  ::mkdir(path.c_str(), 0755);
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

std::string temp_path(const std::string& path) {
  static std::atomic<int> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  std::string tmp = temp_path(path);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw CompileError("Could not write '" + tmp + "'; check that the cache directory is writable.");
  }
  std::rename(tmp.c_str(), path.c_str());
}

std::string expand_embedded_includes(const std::string& source) {
  const auto& headers = embedded_headers();
  std::set<std::string> done;
  std::string out = source;
  for (size_t pos = out.find("#include \""); pos != std::string::npos; pos = out.find("#include \"", pos)) {
    size_t start = pos + 10, end = out.find('"', start);
    std::string name = out.substr(start, end - start);
    auto header = headers.find(name);
    if (header == headers.end()) {
      pos = end;
      continue;
    }
    size_t line_end = out.find('\n', end);
    std::string replacement = done.insert(name).second ? header->second : "";
    out.replace(pos, line_end == std::string::npos ? std::string::npos : line_end - pos, replacement);
  }
  return out;
}

// The cache key hashes: our version, the compiler's identity (`--version` text and binary
// fingerprint), the flags, the host CPU and the generated source, which already holds every
// kernel-specific input (captured values and specialization are baked into the IR, and the
// runtime headers are inlined). Not hashed: the IR text itself (two IRs that generate the same
// source share a library), the system headers behind <stdint.h>, the linker's version, and debug
// switches that do not change the source (QD_DUMP_IR).
LoadedLibrary compile_and_load(const std::string& kernel_name, const std::string& source, bool fast_math) {
  std::string dir = cache_dir();
  make_dirs(dir);
  std::string command = compiler_command(), flags = compile_flags(fast_math);
  std::string key = Hasher()
                        .add(kVersion)
                        .add(compiler_identity(command, dir))
                        .add(flags)
                        .add(cpu_identity())
                        .add(source)
                        .hex();
  std::string base = dir + "/" + kernel_name + "-" + key;
  LoadedLibrary lib = open_library(base + ".so");
  if (lib.entry) {
    lib.source_path = base + ".cpp";
    return lib;
  }

  write_file_atomically(base + ".cpp", source);
  std::string tmp = temp_path(base + ".so"), output;
  ++g_compiler_runs;
  int status = run_command(command + " " + flags + " -x c++ " + shell_quote(base + ".cpp") + " -o " + shell_quote(tmp),
                           &output);
  if (status != 0) {
    std::remove(tmp.c_str());
    throw CompileError("The C++ compiler failed on kernel '" + kernel_name + "' (command: " + command + " " + flags +
                       "); the generated source is kept at " + base + ".cpp. Compiler output:\n" + output);
  }
  std::rename(tmp.c_str(), (base + ".so").c_str());
  lib = open_library(base + ".so");
  if (!lib.entry) {
    throw CompileError("Could not load the compiled kernel '" + kernel_name + "' from " + base + ".so: " +
                       std::string(lib.handle ? "it has no " QD_KERNEL_ENTRY_SYMBOL " symbol" : ::dlerror()) + ".");
  }
  lib.source_path = base + ".cpp";
  return lib;
}

}  // namespace qd::jit
