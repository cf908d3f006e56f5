// src/jit/compile_kernel.cpp: the public compile_kernel(): IR text -> passes -> C++ -> cached library.
#include <atomic>
#include <cstdlib>

#include "codegen/codegen.h"
#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/kernel_params.h"
#include "jit/tiered_build.h"
#include "passes/passes.h"
#include "quadrants/jit.h"

namespace qd {

namespace {

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

// The optimized build when the cache has it; else the quick build (cached or compiled now), with the optimized
// one queued in the background.
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

std::atomic<int> tiered_setting{-1};  // -1: not set by set_tiered_compile, so QD_TIERED_COMPILE decides

}  // namespace

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& ir_text, bool tiered) {
  ir::Kernel kernel = passes::run_pipeline(ir::parse_kernel(ir_text));
  codegen::GeneratedSource generated = codegen::generate_cpu_source(kernel);
  std::string source = jit::expand_embedded_includes(generated.source);
  std::shared_ptr<OptimizedBuild> optimized;
  jit::LoadedLibrary lib = tiered && jit::worth_tiering(source)
                               ? load_tiered(kernel.name, source, kernel.options.fast_math, &optimized)
                               : jit::compile_and_load(kernel.name, source, kernel.options.fast_math, true);

  auto out = std::make_shared<CompiledKernel>();
  out->name = kernel.name;
  out->entry = lib.entry;
  out->returns = kernel.returns;
  out->source = std::move(source);
  out->library_path = lib.library_path;
  out->num_params = static_cast<int>(kernel.params.size());
  for (const ir::Param& p : kernel.params) out->params.push_back(jit::public_param(p));
  out->debug = kernel.options.debug;
  out->assert_messages = std::move(generated.assert_messages);
  out->warnings = kernel.warnings;
  out->library = lib.handle;
  out->num_tasks = count_tasks(kernel);
  out->optimized = std::move(optimized);
  return out;
}

bool wait_for_optimized_builds(double timeout_seconds) { return jit::wait_for_optimized_builds(timeout_seconds); }

void set_tiered_compile(bool enabled) { tiered_setting.store(enabled ? 1 : 0); }

bool tiered_compile_enabled() {
  int setting = tiered_setting.load();
  if (setting >= 0) return setting == 1;
  const char* text = std::getenv("QD_TIERED_COMPILE");
  return !(text && (std::string(text) == "0" || std::string(text) == "false" || std::string(text) == "False"));
}

std::string print_ir(const std::string& ir_text) { return ir::print_kernel(ir::parse_kernel(ir_text)); }

void set_disk_cache_enabled(bool enabled) { jit::set_disk_cache_enabled(enabled); }
bool disk_cache_enabled() { return jit::disk_cache_enabled(); }
std::string cache_directory() { return jit::cache_dir(); }

std::string run_passes(const std::string& ir_text) {
  return ir::print_kernel(passes::run_pipeline(ir::parse_kernel(ir_text)));
}

}  // namespace qd
