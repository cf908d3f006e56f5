// src/jit/compile_kernel.cpp: the public compile_kernel(): IR text -> passes -> C++ -> cached library.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "codegen/codegen.h"
#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "ir/tasks.h"
#include "jit/compiled_index.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/hash.h"
#include "jit/kernel_params.h"
#include "jit/tiered_build.h"
#include "passes/passes.h"
#include "quadrants/jit.h"

namespace qd {

namespace {

// Kernels compiled by this process, by their IR text and compiler setting. A specialization whose IR is that of
// one still in use (a template value that does not reach the code gives the same IR) shares its CompiledKernel:
// no passes run again, and no second copy of its generated source (about 40 KB with the runtime header) is kept.
// 10^5 such specializations held 57 KB each before, 5 GB in all (benchmarks/soak.py templates). Entries of
// kernels freed since are swept whenever the table has doubled.
std::mutex compiled_mutex;  // guards compiled_kernels()
[[maybe_unused]] const int compiled_fork_handler =
    pthread_atfork(nullptr, nullptr, [] { new (&compiled_mutex) std::mutex(); });

std::map<std::string, std::weak_ptr<const CompiledKernel>>& compiled_kernels() {
  static std::map<std::string, std::weak_ptr<const CompiledKernel>> table;
  return table;
}

std::string compiled_key(const std::string& ir_text, TieredCompile tiered) {
  // Besides the IR, what picks the compiler can change within a process (the rest is read once per process),
  // and a tiered compile's result runs its quick build until a launcher swaps: not what an untiered one gives.
  const char* cxx = std::getenv("CXX");
  const char* path = std::getenv("PATH");
  const char* tier = tiered == TieredCompile::off ? "" : "tiered";
  return jit::Hasher().add(ir_text).add(cxx ? cxx : "").add(path ? path : "").add(tier).hex();
}

std::shared_ptr<const CompiledKernel> find_compiled(const std::string& key) {
  std::lock_guard<std::mutex> lock(compiled_mutex);
  auto found = compiled_kernels().find(key);
  return found == compiled_kernels().end() ? nullptr : found->second.lock();
}

void remember_compiled(const std::string& key, const std::shared_ptr<const CompiledKernel>& kernel) {
  std::lock_guard<std::mutex> lock(compiled_mutex);
  static size_t sweep_at = 64;
  auto& table = compiled_kernels();
  table[key] = kernel;
  if (table.size() >= sweep_at) {
    for (auto it = table.begin(); it != table.end();) it = it->second.expired() ? table.erase(it) : std::next(it);
    sweep_at = std::max<size_t>(64, 2 * table.size());
  }
}

// The optimized build when it is loaded or cached; else the quick build (loaded, cached or compiled now), with
// the optimized one queued in the background.
jit::LoadedLibrary load_tiered(const std::string& name, const std::string& source, bool fast_math,
                               std::shared_ptr<OptimizedBuild>* optimized) {
  jit::BuildOptions options{fast_math, true};
  jit::LoadedLibrary lib = jit::load_cached(name, source, options);
  if (lib.entry) return lib;
  options.tier = jit::Tier::quick;
  lib = jit::compile_and_load(name, source, options);
  *optimized = jit::start_optimized_build(name, source, options);
  return lib;
}

// set_tiered_compile's mode; -1 until it is called, when QD_TIERED_COMPILE decides.
std::atomic<int> tiered_setting{-1};

TieredCompile tiered_from_environment() {
  const char* text = std::getenv("QD_TIERED_COMPILE");
  std::string value = text ? text : "";
  if (value.empty() || value == "1" || value == "on" || value == "exact") return TieredCompile::exact;
  if (value == "0" || value == "off") return TieredCompile::off;
  if (value == "all") return TieredCompile::all;
  static std::once_flag warned;
  std::call_once(warned, [&value] {
    std::fprintf(stderr, "quadrants: warning: QD_TIERED_COMPILE='%s' is not one of 0, off, 1, on, exact, all; using "
                 "the default (exact: kernels without fast_math).\n", value.c_str());
  });
  return TieredCompile::exact;
}

}  // namespace

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& ir_text, TieredCompile tiered) {
  std::string key = compiled_key(ir_text, tiered);
  if (std::shared_ptr<const CompiledKernel> same = find_compiled(key)) {
    jit::note_compiled_reuse();
    return same;
  }
  std::string indexed = jit::index_key(key);
  if (!indexed.empty()) {
    if (std::shared_ptr<const CompiledKernel> found = jit::load_indexed(indexed)) {
      remember_compiled(key, found);
      jit::note_compiled_reuse();
      return found;
    }
  }
  ir::Kernel kernel = passes::run_pipeline(ir::parse_kernel(ir_text));
  codegen::GeneratedSource generated = codegen::generate_cpu_source(kernel);
  std::string source = jit::expand_embedded_includes(generated.source);
  bool fast_math = kernel.options.fast_math;
  // Without fast_math both tiers round alike (compiler.cpp's optimization_level); with it, -O1 and -O3 may
  // reassociate and contract differently, so such kernels are tiered only when asked (TieredCompile::all).
  bool tier = tiered == TieredCompile::all || (tiered == TieredCompile::exact && !fast_math);
  std::shared_ptr<OptimizedBuild> optimized;
  jit::LoadedLibrary lib = tier && jit::worth_tiering(source)
                               ? load_tiered(kernel.name, source, fast_math, &optimized)
                               : jit::compile_and_load(kernel.name, source, fast_math, true);

  auto out = std::make_shared<CompiledKernel>();
  out->name = kernel.name;
  out->entry = lib.entry;
  out->returns = kernel.returns;
  out->source = std::move(source);
  out->library_path = lib.library_path;
  out->num_params = static_cast<int>(kernel.params.size());
  for (const ir::Param& p : kernel.params) out->params.push_back(jit::public_param(p));
  out->debug = kernel.options.checks_bounds();  // every kernel with run-time checks reports through the error record
  out->assert_messages = std::move(generated.assert_messages);
  out->warnings = kernel.warnings;
  out->library = lib.handle;
  out->num_tasks = static_cast<int>(ir::split_into_tasks(kernel).size());
  out->optimized = std::move(optimized);
  // The index names the optimized library, also while it is still compiling in the background (a process that
  // finds it missing takes the full path, as before the index).
  if (!indexed.empty()) {
    std::string library_key = out->optimized ? jit::optimized_library_key(kernel.name, out->source, {fast_math, true})
                                             : lib.key;
    if (!library_key.empty()) jit::store_indexed(indexed, *out, library_key);
  }
  remember_compiled(key, out);
  return out;
}

bool wait_for_optimized_builds(double timeout_seconds) { return jit::wait_for_optimized_builds(timeout_seconds); }

void set_tiered_compile(TieredCompile mode) { tiered_setting.store(static_cast<int>(mode)); }

TieredCompile tiered_compile_setting() {
  int setting = tiered_setting.load();
  return setting >= 0 ? static_cast<TieredCompile>(setting) : tiered_from_environment();
}

std::string print_ir(const std::string& ir_text) { return ir::print_kernel(ir::parse_kernel(ir_text)); }

void set_disk_cache_enabled(bool enabled) { jit::set_disk_cache_enabled(enabled); }
bool disk_cache_enabled() { return jit::disk_cache_enabled(); }
std::string cache_directory() { return jit::cache_dir(); }

std::string run_passes(const std::string& ir_text) {
  return ir::print_kernel(passes::run_pipeline(ir::parse_kernel(ir_text)));
}

}  // namespace qd
