// src/jit/compile_kernel.cpp: the public compile_kernel(): IR text -> passes -> C++ -> cached library.
#include "codegen/codegen.h"
#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/kernel_params.h"
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

}  // namespace

std::shared_ptr<const CompiledKernel> compile_kernel(const std::string& ir_text) {
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
