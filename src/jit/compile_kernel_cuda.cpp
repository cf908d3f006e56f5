// src/jit/compile_kernel_cuda.cpp: the public compile_kernel_cuda(): IR text -> passes -> CUDA C++ -> cached NVRTC image.
#include <unistd.h>

#include "codegen/cstyle_renderer.h"
#include "codegen/cuda_renderer.h"
#include "ir/ir_parser.h"
#include "jit/compiled_index.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/graph_condition.h"
#include "jit/kernel_params.h"
#include "jit/hash.h"
#include "jit/nvrtc.h"
#include "passes/passes.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"

namespace qd {

namespace {

// Bump when anything that shapes the CUDA image changes outside the generated source and NVRTC.
constexpr const char* kCudaVersion = "quadrants-cuda-1";

std::vector<std::string> nvrtc_options(bool fast_math) {
  std::vector<std::string> options = {"--std=c++17"};
  // Without fast_math, every operation rounds as written, as on the CPU (-ffp-contract=off): no fused a*b+c.
  options.push_back(fast_math ? "--use_fast_math" : "--fmad=false");
  return options;
}

// The cache key hashes: our version, NVRTC's version and the headers we hand it, the target
// architecture, the options and the generated source (runtime header inlined; it holds every
// kernel-specific input, as on the CPU). Not hashed: the IR text itself, NVRTC's install path, and
// debug switches that do not change the source.
jit::NvrtcImage compile_cached(const std::string& name, const std::string& source, int cc_major, int cc_minor,
                               bool fast_math) {
  std::string target = jit::nvrtc_target(cc_major, cc_minor);
  std::vector<std::string> options = nvrtc_options(fast_math);
  jit::Hasher hasher;
  hasher.add(kCudaVersion).add(jit::nvrtc_identity()).add(target).add(source);
  for (const std::string& option : options) hasher.add(option);
  bool is_ptx = target.rfind("compute_", 0) == 0;
  std::string key = hasher.hex();
  bool cached = jit::disk_cache_enabled();
  std::string base = cached ? jit::cache_dir() + "/" + name + "-" + key : "";
  std::string image_path = base + (is_ptx ? ".ptx" : ".cubin");
  if (cached) {
    std::optional<std::string> image = jit::read_verified(image_path, key);
    if (image && !image->empty()) {
      jit::note_compiled_reuse();
      return {{image->begin(), image->end()}, is_ptx};
    }
    std::string error;
    if (!jit::cache_writable() || !jit::try_write_file_atomically(base + ".cu", source, &error)) {
      if (!error.empty()) jit::warn_cache_not_writable(jit::cache_dir(), error);
      cached = false;  // NVRTC compiles in memory: a full or read-only cache only goes unused
    }
  }
  jit::NvrtcImage image;
  try {
    image = jit::nvrtc_compile(name + ".cu", source, target, options);
  } catch (const CompileError& e) {
    if (!cached) throw;
    throw CompileError(std::string(e.what()) + "\nThe generated source is kept at " + base + ".cu.");
  }
  if (cached && !jit::store_entry(image_path, key, std::string(image.image.begin(), image.image.end()))) {
    ::unlink((base + ".cu").c_str());
  }
  return image;
}

}  // namespace

std::shared_ptr<const CudaCompiledKernel> compile_kernel_cuda(const std::string& ir_text, int cc_major,
                                                              int cc_minor) {
  ir::Kernel kernel = passes::run_pipeline(ir::parse_kernel(ir_text));
  codegen::GeneratedCudaSource generated = codegen::generate_cuda_source(kernel);
  std::string source = jit::expand_embedded_includes(generated.source);
  jit::NvrtcImage image = compile_cached(kernel.name, source, cc_major, cc_minor, kernel.options.fast_math);

  auto out = std::make_shared<CudaCompiledKernel>();
  out->name = kernel.name;
  out->image = std::move(image.image);
  out->is_ptx = image.is_ptx;
  out->tasks = std::move(generated.tasks);
  out->returns = kernel.returns;
  out->frame_bytes = generated.frame_bytes;
  out->args_by_value = generated.args_by_value;
  out->assert_messages = std::move(generated.assert_messages);
  out->source = std::move(source);
  out->num_params = static_cast<int>(kernel.params.size());
  for (const ir::Param& p : kernel.params) out->params.push_back(jit::public_param(p));
  out->warnings = kernel.warnings;
  out->param_written = std::move(generated.param_written);
  out->i32_extents = std::move(generated.i32_extents);
  out->debug = kernel.options.checks_bounds() || codegen::uses_ad_stack(kernel);
  out->graph = kernel.options.graph;
  bool has_loops = false;
  for (const CudaTask& task : out->tasks) has_loops = has_loops || !task.loop_ends.empty();
  if (out->graph && has_loops) out->condition = jit::compile_graph_condition(cc_major, cc_minor);
  return out;
}

std::string generate_cuda_source(const std::string& ir_text) {
  return codegen::generate_cuda_source(passes::run_pipeline(ir::parse_kernel(ir_text))).source;
}

bool nvrtc_available() { return jit::nvrtc_loaded(); }

}  // namespace qd
