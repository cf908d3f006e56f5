// src/jit/compiler.cpp: the kernel cache: key, atomic writes, compiler invocation and dlopen.
#include "jit/compiler.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>
#include <mutex>
#include <new>
#include <set>
#include <sstream>

#include "jit/disk_cache.h"
#include "jit/hash.h"
#include "jit/link_tools.h"
#include "jit/process.h"
#include "jit/spare_compiler.h"
#include "quadrants/errors.h"

namespace qd {
const std::map<std::string, std::string>& embedded_headers();
}

namespace qd::jit {
namespace {

// Bump when anything that shapes generated code changes outside the generated source itself.
constexpr const char* kVersion = "quadrants-jit-1";

std::atomic<int> g_compiler_runs{0};

std::mutex fallback_mutex;                  // guards the two below
std::vector<std::string> fallback_command;  // set_fallback_compiler's words; empty: none
std::string fallback_notice;                // printed once, before the fallback's first compile

// Where `program` (a bare name) is in PATH, or "" when it is not there. Split by hand: the first string stream of a
// process sets up its locale, 80 us of a warm-cache first kernel call (this runs on it, via library_environment).
std::string find_in_path(const std::string& program) {
  const char* env_path = std::getenv("PATH");
  std::string dirs = env_path ? env_path : "";
  for (size_t start = 0; start < dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (end > start) {
      std::string candidate = dirs.substr(start, end - start) + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return "";
}

// find_in_path("c++"), remembered per PATH value once found (a search is a dozen access() calls, and
// runs on every compile_kernel, warm cache included); not found, it searches again next time.
std::string c_plus_plus_in_path() {
  static std::mutex mutex;
  static std::string searched_path, found;
  const char* env_path = std::getenv("PATH");
  std::string path = env_path ? env_path : "";
  std::lock_guard<std::mutex> lock(mutex);
  if (found.empty() || path != searched_path) {
    found = find_in_path("c++");
    searched_path = path;
  }
  return found;
}

// $CXX when set (command_from_cxx: a whole path when it names a file); else `c++` when PATH has it; else the
// fallback (ziglang's clang, given by the Python package); else "" (no compiler).
std::string compiler_command(bool* is_fallback) {
  *is_fallback = false;
  const char* cxx = std::getenv("CXX");
  if (cxx && *cxx) return command_from_cxx(cxx);
  if (!c_plus_plus_in_path().empty()) return "c++";
  std::lock_guard<std::mutex> lock(fallback_mutex);
  std::string command;
  for (const std::string& word : fallback_command) command += (command.empty() ? "" : " ") + quote_command_word(word);
  *is_fallback = !command.empty();
  return command;
}

// Says once per process, before the fallback compiler's first run, that its first use is slow.
void announce_fallback_compiler() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    if (!fallback_notice.empty()) std::fprintf(stderr, "%s\n", fallback_notice.c_str());
  });
}

// The compiler binary as found (its path) and the file that path resolves to (stat follows the symlinks: device,
// inode, size and mtime): enough to notice an upgrade, or an alternatives link moved to another compiler, without
// running it. The inode stands for the resolved path, which realpath() took a readlink per path component to find.
std::string compiler_fingerprint(const std::string& command) {
  std::vector<std::string> words = split_command_words(command);
  std::string program = words.empty() ? command : words[0];
  std::string path = program;
  if (program.find('/') == std::string::npos) {
    std::string found = program == "c++" ? c_plus_plus_in_path() : find_in_path(program);  // searched once
    if (!found.empty()) path = found;
  }
  struct stat info {};
  ::stat(path.c_str(), &info);
  return command + "|" + path + "|" + std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + "|" +
         std::to_string(info.st_size) + "|" + std::to_string(info.st_mtime);
}

std::mutex identity_mutex;  // guards compiler_identity's table
// A forked child does not have the thread that may have held the lock (running `$CXX --version`).
[[maybe_unused]] const int identity_fork_handler =
    pthread_atfork(nullptr, nullptr, [] { new (&identity_mutex) std::mutex(); });

// `$CXX --version`, computed once per process and per compiler; also kept in `dir` (unless empty)
// under the binary's fingerprint, so a warm process never starts the compiler at all.
std::string compiler_identity(const std::string& command, const std::string& dir) {
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(identity_mutex);
  auto found = known.find(command);
  if (found != known.end()) return found->second;
  std::string fingerprint = compiler_fingerprint(command);
  std::string path = dir.empty() ? "" : dir + "/compiler-" + Hasher().add(fingerprint).hex() + ".txt";
  std::string identity;
  if (path.empty() || !read_file(path, &identity)) {
    std::vector<std::string> argv = split_command_words(command);
    argv.push_back("--version");
    run_program(argv, &identity);
    std::string error;  // not kept (a full or read-only cache): asked again by the next process
    if (!path.empty()) try_write_file_atomically(path, identity, &error);
  }
  return known[command] = identity;
}

// The host CPU, since -march=native makes a library specific to it (a shared cache may span machines): the first
// `model name` and `flags` lines of /proc/cpuinfo. Read with read(2), a page at a time, stopping once both are in (the
// kernel writes the file one CPU at a time); no ifstream, whose locale setup costs a warm first call tens of us.
const std::string& cpu_identity() {
  static const std::string identity = [] {
    std::string text, model, flags;
    int fd = ::open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    char chunk[8192];
    size_t scanned = 0;  // text[0, scanned) holds whole lines already looked at
    for (ssize_t n = 0; fd >= 0 && (model.empty() || flags.empty());) {
      n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) text.append(chunk, static_cast<size_t>(n));
      for (size_t end; (end = text.find('\n', scanned)) != std::string::npos || (n <= 0 && scanned < text.size());) {
        if (end == std::string::npos) end = text.size();  // the last line, without a newline
        std::string line = text.substr(scanned, end - scanned);
        if (model.empty() && line.rfind("model name", 0) == 0) model = line;
        if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
        scanned = end + 1;
      }
      if (n <= 0) break;
    }
    if (fd >= 0) ::close(fd);
    return model + "\n" + flags;
  }();
  return identity;
}

// Generated sources past this size compile at -O1. GCC's -O2/-O3 time grows faster than linearly with the size
// of a function, and a kernel is one function with every qd.func inlined: Genesis' collision kernel is 4.3 MB of
// C++, 26 s at -O3 and 7.5 s at -O1 on 2 cores, while small kernels keep -O3 (Mandelbrot, stencils).
size_t large_kernel_bytes() {
  static const size_t limit = [] {
    const char* text = std::getenv("QD_LARGE_KERNEL_BYTES");
    return text && *text ? static_cast<size_t>(std::strtoull(text, nullptr, 10)) : size_t{1} << 20;
  }();
  return limit;
}

// Generated sources past this size (and up to large_kernel_bytes()) compile at -O2. Such kernels are long
// branchy bodies of inlined funcs (Genesis' solver and dynamics kernels, 150 KiB-1 MiB), where -O3's extra
// work (loop versioning, unrolling, more vectorization) costs 1.5-2.7x -O2's compile time and bought no step
// time in Genesis' scenes (benchmarks/RESULTS.md); the runtime header alone is 42 KB of every source, so
// ordinary kernels stay far below and keep -O3.
size_t medium_kernel_bytes() {
  static const size_t limit = [] {
    const char* text = std::getenv("QD_MEDIUM_KERNEL_BYTES");
    return text && *text ? static_cast<size_t>(std::strtoull(text, nullptr, 10)) : size_t{128} << 10;
  }();
  return limit;
}

// GCC's driver links a shared library against libstdc++, libgcc_s and the start files; searching them
// took 12 of a small kernel's 55 ms of compile. Generated kernels use none of them (no exceptions, RTTI,
// static objects or standard C++ headers): they link only libm, and libgcc.a for the helpers GCC may
// call (128-bit division). libc, which every host process has loaded, resolves the rest at dlopen.
// Other compilers (clang, zig) keep their own defaults, and so does a CXX that carries options of its own
// (CXX="g++ -fsanitize=undefined" needs the driver to link its runtime). `libs` go after the source, where
// a linker that drops unneeded libraries (--as-needed) has seen what uses them.
bool is_gcc(const std::string& identity) {
  return identity.find("Free Software Foundation") != std::string::npos && identity.find("clang") == std::string::npos;
}

bool has_options(const std::string& command) {
  std::vector<std::string> words = split_command_words(command);
  return std::any_of(words.begin(), words.end(), [](const std::string& w) { return !w.empty() && w[0] == '-'; });
}

// The optimization level of a build. Optimized: -O3, -O2 past medium_kernel_bytes(), -O1 past
// large_kernel_bytes(). Quick (tiered compile's first build): -O1, or -O0 past large_kernel_bytes(). Only the
// level differs between tiers, never a floating-point flag, so without fast_math both round every operation alike
// (tests/python/test_tiered_compile.py).
const char* optimization_level(Tier tier, size_t source_bytes) {
  bool large = source_bytes > large_kernel_bytes();
  if (tier == Tier::quick) return large ? "-O0" : "-O1";
  if (large) return "-O1";
  return source_bytes > medium_kernel_bytes() ? "-O2" : "-O3";
}

std::vector<std::string> compile_flags(const BuildOptions& options, size_t source_bytes, const std::string& identity,
                                       std::vector<std::string>* libs) {
  bool fast_math = options.fast_math;
  libs->clear();
  if (options.standalone && is_gcc(identity)) *libs = {"-lm", "-lgcc"};
  // No -fwrapv: the generated code wraps the integer arithmetic that can overflow itself (NVRTC has no
  // such flag), and leaves the rest plain so that i32 index arithmetic can still be widened to 64-bit
  // addressing; -fwrapv made a 2D stencil 2.7x slower by stopping vectorization (int_ranges.h).
  std::vector<std::string> flags = {optimization_level(options.tier, source_bytes),
                                    "-march=native", "-std=c++17", "-shared", "-fPIC", "-fno-exceptions",
                                    "-fno-rtti", "-pipe"};
  if (!libs->empty()) flags.push_back("-nostdlib");
  // Without fast_math a kernel rounds every operation as written (numpy's results, and the CUDA side's under
  // --fmad=false): GCC would otherwise fuse a * b + c into one FMA, with one rounding instead of two.
  if (!fast_math) flags.push_back("-ffp-contract=off");
  // Always, since they change no result: kernels never read errno (so sqrt is an instruction and exp, log and
  // pow calls are pure, free to be shared and hoisted) and never trap on floating-point exceptions.
  flags.push_back("-fno-math-errno");
  flags.push_back("-fno-trapping-math");
  // -ffast-math's parts, without its name: given -ffast-math, GCC < 13 links crtfastmath.o even
  // into shared libraries, which sets flush-to-zero for the whole process when the kernel loads.
  if (fast_math) {
    for (const char* flag : {"-ffinite-math-only", "-fno-signed-zeros", "-fassociative-math", "-freciprocal-math",
                             "-fno-rounding-math", "-fcx-limited-range"}) {
      flags.push_back(flag);
    }
  }
  return flags;
}

// dlopen()s `path`; `shown_path` is what error messages and library_path name.
LoadedLibrary open_library(const std::string& path, const std::string& shown_path) {
  void* raw = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!raw) return {};
  LoadedLibrary lib;
  lib.handle = std::shared_ptr<void>(raw, [](void* h) { ::dlclose(h); });
  lib.entry = reinterpret_cast<QdKernelEntry>(::dlsym(raw, QD_KERNEL_ENTRY_SYMBOL));
  lib.library_path = shown_path;
  return lib;
}

// dlopen()s `bytes` from a sealed anonymous in-memory file: 35 us, where a copy in a fresh directory
// (created, written, renamed, removed) took 160-200 us of a warm first call. glibc's dlopen hands back
// an already loaded library whose name is the same string, and fd numbers are reused, so the plain
// /proc/self/fd/N would give a later kernel an earlier one's code: each load's path is made unique by
// spelling a process-wide counter in "./" and ".//" steps, which resolve to the same directory.
// Empty when memfds or /proc are unavailable (or memfds may not be executable): the caller copies.
LoadedLibrary open_from_memory(const std::string& bytes, const std::string& shown_path) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
  int fd = ::memfd_create("quadrants-kernel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return {};
  bool written = write_all(fd, bytes) &&
                 ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0;
  LoadedLibrary lib;
  if (written) {
    static std::atomic<uint32_t> loads{0};
    uint32_t serial = loads++;
    std::string path = "/proc/self/fd/";
    for (int bit = 0; bit < 32; ++bit) path += (serial >> bit) & 1 ? ".//" : "./";
    lib = open_library(path + std::to_string(fd), shown_path);
  }
  ::close(fd);
  return lib;
#else
  (void)bytes;
  (void)shown_path;
  return {};
#endif
}

// A cached library whose manifest vouches for it under `key`; an empty result is a miss. The verified
// bytes are what gets loaded (from memory, else from a copy in a fresh private directory), so what runs
// is what was checked.
LoadedLibrary open_cached_library(const std::string& path, const std::string& key) {
  std::optional<std::string> bytes = read_verified(path, key);
  if (!bytes) return {};
  LoadedLibrary from_memory = open_from_memory(*bytes, path);
  if (from_memory.entry) return from_memory;
  std::string work = make_work_dir(), error;
  if (!try_write_file_atomically(work + "/cached.so", *bytes, &error)) {  // the cache's disk is full
    remove_tree(work);
    work = make_work_dir(false);
    write_file_atomically(work + "/cached.so", *bytes);
  }
  LoadedLibrary lib = open_library(work + "/cached.so", path);
  remove_tree(work);
  return lib.entry ? lib : LoadedLibrary{};
}

// Where an entry lives, less its extension: DIR/NAME-KEY, or DIR/NAME-quick-KEY for a quick build.
std::string entry_base(const std::string& dir, const std::string& kernel_name, Tier tier, const std::string& key) {
  return dir + "/" + kernel_name + (tier == Tier::quick ? "-quick-" : "-") + key;
}

std::string cache_key(const std::string& identity, const std::vector<std::string>& flags,
                      const std::vector<std::string>& libs, const std::string& source) {
  Hasher key_parts;
  key_parts.add(kVersion).add(identity).add(cpu_identity());
  for (const std::string& flag : flags) key_parts.add(flag);
  for (const std::string& lib : libs) key_parts.add(lib);
  return key_parts.add(source).hex();
}

// With no compiler at all: the library cached for `source` under any compiler identity this cache
// recorded (compiler-*.txt), so a warm cache loads without a compiler. Which one wins when several
// compilers built the same source is unspecified; each was verified under its own key.
LoadedLibrary open_cached_without_compiler(const std::string& kernel_name, const std::string& source,
                                           const BuildOptions& options) {
  std::string dir = cache_dir();
  std::vector<std::string> identity_files;
  if (DIR* listing = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name.rfind("compiler-", 0) == 0 && name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0) {
        identity_files.push_back(dir + "/" + name);
      }
    }
    ::closedir(listing);
  }
  for (const std::string& file : identity_files) {
    std::string identity;
    if (!read_file(file, &identity)) continue;
    std::vector<std::string> libs;
    std::vector<std::string> flags = compile_flags(options, source.size(), identity, &libs);
    std::string key = cache_key(identity, flags, libs, source);
    std::string base = entry_base(dir, kernel_name, options.tier, key);
    LoadedLibrary lib = open_cached_library(base + ".so", key);
    if (lib.entry) {
      lib.source_path = base + ".cpp";
      return lib;
    }
  }
  return {};
}

// The compiler run that builds the library from `source_path` in one go (a compiler other than GCC, or a
// kernel that needs the C++ runtime library).
int compile_in_one_run(const std::string& command, const std::vector<std::string>& flags,
                       const std::string& source_path, const std::string& library, std::string* output) {
  std::vector<std::string> argv = split_command_words(command);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-x", "c++", source_path, "-o", library});
  return run_program(argv, output);
}

// Libraries this process has loaded, by kernel name and cache key. A load of a library that is loaded and still
// in use (a template value that does not reach the generated code, the same kernel again after qd.reset())
// shares it instead of mapping another copy: each copy takes a few memory mappings, and 10^5 specializations
// of one kernel passed the kernel's limit of 65530 mappings per process. Entries of libraries unloaded since
// are swept whenever the table has doubled.
struct LoadedEntry {
  std::weak_ptr<void> handle;
  QdKernelEntry entry = nullptr;
  std::string library_path, source_path;
};
std::mutex loaded_mutex;  // guards loaded_libraries()
[[maybe_unused]] const int loaded_fork_handler =
    pthread_atfork(nullptr, nullptr, [] { new (&loaded_mutex) std::mutex(); });

std::map<std::string, LoadedEntry>& loaded_libraries() {
  static std::map<std::string, LoadedEntry> table;
  return table;
}

LoadedLibrary find_loaded(const std::string& id) {
  std::lock_guard<std::mutex> lock(loaded_mutex);
  auto found = loaded_libraries().find(id);
  if (found == loaded_libraries().end()) return {};
  LoadedLibrary lib;
  lib.handle = found->second.handle.lock();
  if (!lib.handle) {
    loaded_libraries().erase(found);
    return {};
  }
  lib.entry = found->second.entry;
  lib.library_path = found->second.library_path;
  lib.source_path = found->second.source_path;
  return lib;
}

const LoadedLibrary& remember_loaded(const std::string& id, const LoadedLibrary& lib) {
  std::lock_guard<std::mutex> lock(loaded_mutex);
  static size_t sweep_at = 64;
  auto& table = loaded_libraries();
  table[id] = LoadedEntry{lib.handle, lib.entry, lib.library_path, lib.source_path};
  if (table.size() >= sweep_at) {
    for (auto it = table.begin(); it != table.end();) {
      it = it->second.handle.expired() ? table.erase(it) : std::next(it);
    }
    sweep_at = std::max<size_t>(64, 2 * table.size());
  }
  return lib;
}

// The text generated kernels share after their first comment line: what a spare compiler reads in advance.
const std::string& runtime_prefix() {
  static const std::string prefix = expand_embedded_includes("#include \"qd_runtime.h\"\n");
  return prefix;
}

// GCC building a standalone kernel: compile to an object, on the waiting spare compiler when there is one
// (spare_compiler.h), then link with ld itself (link_tools.h); the driver links when ld could not be found
// or failed. Each step's output goes to *output.
int compile_then_link(const std::string& command, const std::vector<std::string>& flags,
                      const std::vector<std::string>& libs, const std::string& source,
                      const std::string& source_path, const std::string& library, bool use_spare,
                      std::string* output) {
  std::vector<std::string> words = split_command_words(command);
  find_link_tools(words);
  std::vector<std::string> compile = words;
  compile.insert(compile.end(), flags.begin(), flags.end());
  compile.push_back("-c");
  std::string spare_dir, object;
  SpareResult on_spare =
      use_spare ? compile_on_spare(compile, runtime_prefix(), source, &spare_dir, &object) : SpareResult::kNoSpare;
  if (on_spare != SpareResult::kBuilt) {
    if (use_spare) start_spare(compile, runtime_prefix());  // for the next kernel, while this one compiles
    object = library + ".o";
    std::vector<std::string> argv = compile;
    argv.insert(argv.end(), {"-x", "c++", source_path, "-o", object});
    int status = run_program(argv, output);
    if (status != 0) return status;
    if (on_spare == SpareResult::kFailed) disable_spares();  // the source was fine: spares do not work here
  }
  std::vector<std::string> link = direct_link_argv(words, object, library);
  std::string link_output;
  int status = link.empty() ? -1 : run_program(link, &link_output);
  if (status != 0) {
    link = words;
    link.insert(link.end(), {"-shared", "-nostdlib", object, "-o", library});
    link.insert(link.end(), libs.begin(), libs.end());
    status = run_program(link, output);
  }
  if (!spare_dir.empty()) remove_tree(spare_dir);
  return status;
}

// A header's text minus its `#pragma once` line: pasted into the main file it is already included
// once, and compilers warn "#pragma once in main file" about it (our code, not the user's).
std::string without_pragma_once(const std::string& header) {
  std::string out;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t") != std::string::npos &&
        line.compare(line.find_first_not_of(" \t"), 12, "#pragma once") == 0) {
      continue;
    }
    out += line + "\n";
  }
  return out;
}

// One compile of a kernel, and where it happened.
struct CompileRun {
  std::string work, source_path, library_path;  // the work directory, and the source and library in it
  bool built = false;     // the compiler succeeded and the library was read into `bytes`
  bool in_cache = false;  // the work directory is in the cache directory
  std::string bytes, output;  // the library, the compiler's output
  std::string cache_failure;  // why the cache's directory was given up (in_cache false although asked)
};

// Compiles `source` in a fresh work directory: in the cache directory when `in_cache` (so the kept source is
// renamed into place), else a private one. When the cache's directory fails it (a write error there, or a
// failed compile that directory_may_have_failed blames on it: disk full, made read-only or removed while the
// compiler ran), the compile runs once more in a private directory, so that the kernel still runs.
CompileRun compile_in_work_dir(const std::string& command, const std::vector<std::string>& flags,
                               const std::vector<std::string>& libs, const std::string& kernel_name,
                               const std::string& source, bool in_cache, bool use_spare) {
  CompileRun run;
  std::string failure;  // why the cache's directory was given up
  for (;;) {
    run = CompileRun{};
    run.in_cache = in_cache;
    run.cache_failure = failure;
    run.work = make_work_dir(in_cache);
    run.source_path = run.work + "/" + kernel_name + ".cpp";
    run.library_path = run.work + "/" + kernel_name + ".so";
    std::string error;
    if (!try_write_file_atomically(run.source_path, source, &error)) {
      remove_tree(run.work);
      if (!in_cache) throw CompileError("Could not write a kernel's source to compile it (" + error + ").");
      in_cache = false;
      failure = error;
      continue;
    }
    ++g_compiler_runs;
    int status = libs.empty()
                     ? compile_in_one_run(command, flags, run.source_path, run.library_path, &run.output)
                     : compile_then_link(command, flags, libs, source, run.source_path, run.library_path, use_spare,
                                         &run.output);
    run.built = status == 0 && read_file(run.library_path, &run.bytes);
    if (run.built || !in_cache || !directory_may_have_failed(run.work, run.output)) break;
    remove_tree(run.work);
    in_cache = false;
    failure = "the compiler failed in it: " + run.output.substr(0, run.output.find('\n'));
  }
  return run;
}

}  // namespace

void set_fallback_compiler(const std::vector<std::string>& command, const std::string& notice) {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  fallback_command = command;
  fallback_notice = notice;
}

int compiler_runs() { return g_compiler_runs.load(); }

std::string expand_embedded_includes(const std::string& source) {
  const auto& headers = embedded_headers();
  std::set<std::string> done;
  // Prepared once per process: redoing it took 60 us of a warm-cache compile_kernel's 400.
  static const std::map<std::string, std::string> prepared = [&headers] {
    std::map<std::string, std::string> out;
    for (const auto& [name, text] : headers) out[name] = without_pragma_once(text);
    return out;
  }();
  std::string out = source;
  for (size_t pos = out.find("#include \""); pos != std::string::npos; pos = out.find("#include \"", pos)) {
    size_t start = pos + 10, end = out.find('"', start);
    std::string name = out.substr(start, end - start);
    auto header = prepared.find(name);
    if (header == prepared.end()) {
      pos = end;
      continue;
    }
    size_t line_end = out.find('\n', end);
    static const std::string nothing;  // a header's second include
    const std::string& replacement = done.insert(name).second ? header->second : nothing;
    out.replace(pos, line_end == std::string::npos ? std::string::npos : line_end - pos, replacement);
  }
  return out;
}

namespace {

// What one build of a source uses: the compiler, its flags, the cache key, and where its entry lives. An empty
// command: there is no compiler.
struct BuildPlan {
  std::string command;
  bool is_fallback = false;
  std::vector<std::string> flags, libs;
  std::string key, base, loaded_id;  // base: "" with the cache off
  bool cached = false;
};

// The cache key hashes: our version, the compiler's identity (`--version` text and binary
// fingerprint), the flags (the tier's optimization level among them), the host CPU and the generated source,
// which already holds every kernel-specific input (captured values and specialization are baked into the IR, and
// the runtime headers are inlined). Not hashed: the IR text itself (two IRs that generate the same
// source share a library), the system headers behind <stdint.h>, the linker's version, and debug
// switches that do not change the source (QD_DUMP_IR). The compile runs in a private work
// directory, so no path it uses can be swapped under it; what it produced is what gets loaded.
BuildPlan plan_build(const std::string& kernel_name, const std::string& source, const BuildOptions& options) {
  BuildPlan plan;
  plan.cached = disk_cache_enabled();
  plan.command = compiler_command(&plan.is_fallback);
  if (plan.command.empty()) return plan;
  std::string identity = compiler_identity(plan.command, plan.cached ? cache_dir() : "");
  BuildOptions effective = options;
  effective.standalone = options.standalone && !has_options(plan.command);
  plan.flags = compile_flags(effective, source.size(), identity, &plan.libs);
  plan.key = cache_key(identity, plan.flags, plan.libs, source);
  plan.loaded_id = kernel_name + "-" + plan.key;
  if (plan.cached) plan.base = entry_base(cache_dir(), kernel_name, options.tier, plan.key);
  return plan;
}

// The library of a plan that this process has loaded, else the disk cache's; empty on a miss.
LoadedLibrary load_planned(const BuildPlan& plan) {
  if (LoadedLibrary lib = find_loaded(plan.loaded_id); lib.entry) {
    if (plan.cached) lib.key = plan.key;
    return lib;
  }
  if (!plan.cached) return {};
  LoadedLibrary lib = open_cached_library(plan.base + ".so", plan.key);
  if (!lib.entry) return {};
  lib.source_path = plan.base + ".cpp";
  lib.key = plan.key;
  return remember_loaded(plan.loaded_id, lib);
}

}  // namespace

std::string library_environment() {
  if (!disk_cache_enabled()) return "";
  bool is_fallback = false;
  std::string command = compiler_command(&is_fallback);
  if (command.empty()) return "";
  const char* tier_bytes = std::getenv("QD_TIERED_COMPILE_BYTES");
  return Hasher()
      .add(kVersion)
      .add(command)
      .add(compiler_identity(command, cache_dir()))
      .add(cpu_identity())
      .add(std::to_string(large_kernel_bytes()))
      .add(std::to_string(medium_kernel_bytes()))
      .add(tier_bytes ? tier_bytes : "")
      .hex();
}

std::string optimized_library_key(const std::string& kernel_name, const std::string& source, BuildOptions options) {
  options.tier = Tier::optimized;
  BuildPlan plan = plan_build(kernel_name, source, options);
  return plan.cached && !plan.command.empty() ? plan.key : "";
}

LoadedLibrary load_by_key(const std::string& kernel_name, const std::string& key) {
  if (!disk_cache_enabled()) return {};
  std::string loaded_id = kernel_name + "-" + key;
  if (LoadedLibrary lib = find_loaded(loaded_id); lib.entry) {
    lib.key = key;
    return lib;
  }
  std::string base = entry_base(cache_dir(), kernel_name, Tier::optimized, key);
  LoadedLibrary lib = open_cached_library(base + ".so", key);
  if (!lib.entry) return {};
  lib.source_path = base + ".cpp";
  lib.key = key;
  return remember_loaded(loaded_id, lib);
}

LoadedLibrary load_cached(const std::string& kernel_name, const std::string& source, const BuildOptions& options) {
  BuildPlan plan = plan_build(kernel_name, source, options);
  if (!plan.command.empty()) return load_planned(plan);
  return plan.cached ? open_cached_without_compiler(kernel_name, source, options) : LoadedLibrary{};
}

void remove_cached(const std::string& kernel_name, const std::string& source, const BuildOptions& options) {
  BuildPlan plan = plan_build(kernel_name, source, options);
  if (plan.command.empty() || !plan.cached) return;
  // The manifest first: from then on no reader trusts the rest, whatever order they go in.
  for (const char* extension : {".so.manifest", ".so", ".cpp"}) ::unlink((plan.base + extension).c_str());
}

bool tiers_differ(const std::string& source) {
  return std::string(optimization_level(Tier::quick, source.size())) !=
         optimization_level(Tier::optimized, source.size());
}

LoadedLibrary compile_and_load(const std::string& kernel_name, const std::string& source, const BuildOptions& options) {
  BuildPlan plan = plan_build(kernel_name, source, options);
  bool cached = plan.cached;
  const std::string& command = plan.command;
  if (command.empty()) {
    LoadedLibrary lib = cached ? open_cached_without_compiler(kernel_name, source, options) : LoadedLibrary{};
    if (lib.entry) return lib;
    throw CompileError("No C++ compiler to compile kernel '" + kernel_name + "' for the CPU: CXX is not set and " +
                       "there is no c++ in PATH. Do one of: `pip install quadrants[compiler]` (the clang that the " +
                       "ziglang package ships), install g++ or clang (e.g. `apt-get install g++`), or set CXX to a " +
                       "C++17 compiler.");
  }
  if (LoadedLibrary hit = load_planned(plan); hit.entry) return hit;
  const std::vector<std::string>& flags = plan.flags;
  const std::vector<std::string>& libs = plan.libs;
  const std::string& base = plan.base;
  const std::string& key = plan.key;
  const std::string& loaded_id = plan.loaded_id;
  cached = cached && cache_writable();  // read-only: entries were read above, new ones are not stored
  if (plan.is_fallback) announce_fallback_compiler();
  CompileRun run = compile_in_work_dir(command, flags, libs, kernel_name, source, cached, !options.in_background);
  if (cached && !run.in_cache) {  // the cache's directory failed the compile (full, made read-only, removed)
    warn_cache_not_writable(cache_dir(), run.cache_failure);
    cached = false;
  }
  std::string kept_source = cached ? base + ".cpp" : run.source_path;
  if (cached && std::rename(run.source_path.c_str(), kept_source.c_str()) != 0) kept_source = run.source_path;
  if (!run.built) {
    if (cached) remove_tree(run.work);
    std::string shown = command;
    for (const std::string& flag : flags) shown += " " + flag;
    for (const std::string& lib : libs) shown += " " + lib;
    throw CompileError("The C++ compiler failed on kernel '" + kernel_name + "' (command: " + shown +
                       "); the generated source is kept at " + kept_source + ". Compiler output:\n" + run.output);
  }
  // Loaded from the bytes just read, as a cached library is: no mapping pins the work directory's file (on
  // NFS a removed mapped file leaves a .nfs* file behind, and the directory with it).
  LoadedLibrary lib = open_from_memory(run.bytes, cached ? base + ".so" : "");
  if (!lib.entry) lib = open_library(run.library_path, cached ? base + ".so" : "");
  std::string load_error = lib.handle ? "it has no " QD_KERNEL_ENTRY_SYMBOL " symbol" : std::string(::dlerror());
  bool stored = lib.entry && cached && store_entry(base + ".so", key, run.bytes);
  if (lib.entry && cached && !stored) ::unlink(kept_source.c_str());
  remove_tree(run.work);  // a library loaded from the file itself stays mapped once the file is gone
  if (!lib.entry) {
    throw CompileError("Could not load the compiled kernel '" + kernel_name + "': " + load_error + ".");
  }
  lib.source_path = kept_source;
  if (stored) lib.key = key;
  return remember_loaded(loaded_id, lib);
}

}  // namespace qd::jit
