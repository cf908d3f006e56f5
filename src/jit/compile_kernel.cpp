// src/jit/compile_kernel.cpp: the public compile_kernel(): IR text -> passes -> C++ -> cached library.
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "codegen/codegen.h"
#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/hash.h"
#include "jit/kernel_params.h"
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

std::string compiled_key(const std::string& ir_text) {
  // Besides the IR, what picks the compiler can change within a process (the rest is read once per process).
  const char* cxx = std::getenv("CXX");
  const char* path = std::getenv("PATH");
  return jit::Hasher().add(ir_text).add(cxx ? cxx : "").add(path ? path : "").hex();
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

int count_tasks(const ir::Kernel& kernel) {
  int tasks = 0;
  bool in_serial_run = false;
  for (const ir::Stmt& s : kernel.body) {
    bool loop = ir::as<ir::ParallelFor>(s) != nullptr;
    if (loop || !in_serial_run) ++tasks;
    in_serial_run = !loop;
  }
  return tasks;
}

}  // namespace

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& ir_text) {
  std::string key = compiled_key(ir_text);
  if (std::shared_ptr<const CompiledKernel> same = find_compiled(key)) return same;
  ir::Kernel kernel = passes::run_pipeline(ir::parse_kernel(ir_text));
  codegen::GeneratedSource generated = codegen::generate_cpu_source(kernel);
  std::string source = jit::expand_embedded_includes(generated.source);
  jit::LoadedLibrary lib = jit::compile_and_load(kernel.name, source, kernel.options.fast_math, true);

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
  out->num_tasks = count_tasks(kernel);
  remember_compiled(key, out);
  return out;
}

std::string print_ir(const std::string& ir_text) { return ir::print_kernel(ir::parse_kernel(ir_text)); }

void set_disk_cache_enabled(bool enabled) { jit::set_disk_cache_enabled(enabled); }
bool disk_cache_enabled() { return jit::disk_cache_enabled(); }
std::string cache_directory() { return jit::cache_dir(); }

std::string run_passes(const std::string& ir_text) {
  return ir::print_kernel(passes::run_pipeline(ir::parse_kernel(ir_text)));
}

}  // namespace qd
