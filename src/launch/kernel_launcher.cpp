// src/launch/kernel_launcher.cpp: a kernel's parameters and compiled variants, the compile on a miss, and the
// C++ call; the per-call work itself is LaunchFrame's (launch_frame.cpp).
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <shared_mutex>

#include "launch/launch_frame.h"
#include "quadrants/errors.h"

namespace qd {
Target detail::process_target;
void set_target(Target target) { detail::process_target = target; }

void LaunchHooks::warn(const std::string& message) { std::fprintf(stderr, "quadrants: %s\n", message.c_str()); }

KernelLauncher::KernelLauncher(std::string name, std::vector<LaunchParam> params, CompileCallback compile, bool cpu_only)
    : name_(std::move(name)), params_(std::move(params)), compile_(std::move(compile)), cpu_only_(cpu_only) {
  if (cpu_only_) pinned_ = Target{};
  for (const LaunchParam& p : params_) {
    first_slot_.push_back(arg_names_.size());
    for (int k = 0; k < p.count; ++k) arg_names_.push_back(p.name);
  }
}

KernelLauncher::~KernelLauncher() { delete spare_storage_.exchange(nullptr); }

void KernelLauncher::clear() {
  std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate());  // variants own loaded code
  variants_.clear();
  last_ = nullptr;
}

int KernelLauncher::quick_variants() const {
  int count = 0;
  for (const std::unique_ptr<Specialization>& variant : variants_) count += variant->upgrade ? 1 : 0;
  return count;
}

std::string KernelLauncher::where(size_t param) const {
  return "Kernel '" + name_ + "' argument '" + params_[param].name + "'";
}

bool KernelLauncher::first_warning(std::vector<bool>& warned, size_t param) {
  if (warned.size() < params_.size()) warned.resize(params_.size(), false);
  if (warned[param]) return false;
  warned[param] = true;
  return true;
}

const Specialization* KernelLauncher::find(const uint64_t* key) const {
  for (const std::unique_ptr<Specialization>& variant : variants_) {
    if (same_key(*variant, key, params_.size())) return variant.get();
  }
  return nullptr;
}

const Specialization& KernelLauncher::compile(const uint64_t* key, Target target, void* context) {
  CompiledVariant compiled = compile_(CompileRequest{*this, key, target, context});
  auto variant = std::make_unique<Specialization>();
  variant->key.assign(key, key + params_.size());
  const std::vector<KernelParam>* params = nullptr;
  if (compiled.cuda) {
    params = &compiled.cuda->params;
    variant->cuda = compiled.cuda;
    variant->returns = compiled.cuda->returns;
    variant->assert_messages = &compiled.cuda->assert_messages;
    variant->num_tasks = static_cast<int>(compiled.cuda->tasks.size());
    variant->keep = compiled.cuda;
  } else if (compiled.cpu) {
    params = &compiled.cpu->params;
    variant->entry = compiled.cpu->entry;
    variant->upgrade = compiled.cpu->optimized;  // tiered compile: swapped in by a later launch
    variant->returns = compiled.cpu->returns;
    variant->assert_messages = &compiled.cpu->assert_messages;
    variant->num_tasks = compiled.cpu->num_tasks;
    variant->keep = compiled.cpu;
  } else {
    throw ValueError("Kernel '" + name_ + "': the compile callback returned no kernel.");
  }
  check_variant(key, *params, compiled.globals.size());
  most_globals_ = std::max(most_globals_, compiled.globals.size());  // later frames make room for them up front
  variant->globals = std::move(compiled.globals);
  // Fields are named by the parameter names the kernel IR gave them.
  variant->arg_names = arg_names_;
  for (size_t i = arg_names_.size(); i < params->size(); ++i) variant->arg_names.push_back((*params)[i].name);
  variants_.push_back(std::move(variant));
  return *variants_.back();
}

// A variant must take what the arguments are: the same kinds, and for arrays the same dtype, dims and element
// shape, contiguity where it relies on it, writability where it writes.
void KernelLauncher::check_variant(const uint64_t* key, const std::vector<KernelParam>& params, size_t globals) const {
  if (params.size() != arg_names_.size() + globals) {
    throw ValueError("Kernel '" + name_ + "' was compiled with " + std::to_string(params.size()) + " parameters, but " +
                     "is launched with " + std::to_string(arg_names_.size()) + " argument(s) and " +
                     std::to_string(globals) + " global(s).");
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    bool is_array = params_[i].kind == LaunchParam::Kind::array;
    for (int k = 0; k < params_[i].count; ++k) {
      if ((params[first_slot_[i] + k].kind == KernelParam::Kind::array) != is_array) {
        throw TypeError(where(i) + ": the compiled kernel takes " + (is_array ? "a scalar" : "an array") +
                        " here, but the argument is " + (is_array ? "an array." : "a scalar."));
      }
    }
    if (!is_array) continue;
    const KernelParam& param = params[first_slot_[i]];
    ArraySignature sig = unpack_array_signature(key[i]);
    int dims = param.ndim + static_cast<int>(param.element_shape.size());
    if (sig.dtype != param.dtype) {
      throw TypeError(where(i) + ": expected dtype " + std::string(dtype_name(param.dtype)) + ", but got " +
                      std::string(dtype_name(sig.dtype)) + ".");
    }
    if (sig.ndim + sig.element_ndim != dims) {
      throw ValueError(where(i) + ": expected " + std::to_string(dims) + " dimension(s) including element "
                       "dimensions, but got " + std::to_string(sig.ndim + sig.element_ndim) + ".");
    }
    if (sig.element_ndim != static_cast<int>(param.element_shape.size())) {
      throw ValueError(where(i) + ": expected " + std::to_string(param.element_shape.size()) + " element "
                       "dimension(s), but got " + std::to_string(sig.element_ndim) + ".");
    }
    for (int e = 0; e < sig.element_ndim && e < 2; ++e) {
      if (sig.element_shape[e] != param.element_shape[e]) {
        throw ValueError(where(i) + ": element dimension " + std::to_string(e) + " must be " +
                         std::to_string(param.element_shape[e]) + ", but got " + std::to_string(sig.element_shape[e]) +
                         ".");
      }
    }
    if (param.contiguous && !sig.contiguous) {
      throw ValueError(where(i) + ": this kernel was compiled for contiguous arrays, but the view is strided; "
                       "export the kernel with a strided example argument.");
    }
    if (param.writable && !sig.writable) {
      throw ValueError(where(i) + ": the kernel may write this argument, but the view is read-only.");
    }
  }
}

void KernelLauncher::pack_scalar(size_t param, const KernelArg& arg, QdArg& out) const {
  std::optional<DtypeCode> dtype = params_[param].dtype;
  if (dtype ? is_float(*dtype) : arg.kind == KernelArg::Kind::floating) {
    out.scalar.f = arg.kind == KernelArg::Kind::floating ? arg.floating : static_cast<double>(arg.integer);
    return;
  }
  if (arg.kind == KernelArg::Kind::floating) {
    throw TypeError(where(param) + ": expected an integer for " + std::string(dtype_name(*dtype)) +
                    ", but got a float.");
  }
  out.scalar.i = arg.integer;
}

std::vector<QdArg> KernelLauncher::launch(const std::vector<KernelArg>& args, CUstream stream) {
  LaunchHooks hooks;
  return launch(args, hooks, stream);
}

std::vector<QdArg> KernelLauncher::launch(const std::vector<KernelArg>& args, LaunchHooks& hooks, CUstream stream) {
  if (args.size() != params_.size()) {
    throw TypeError("Kernel '" + name_ + "' takes " + std::to_string(params_.size()) + " argument(s), but " +
                    std::to_string(args.size()) + " were given.");
  }
  for (bool retried = false;; retried = true) {
    // On the heap: a frame holds the most arguments a kernel takes, too much for some threads' stacks.
    auto frame = std::make_unique<LaunchFrame>(*this, hooks);
    for (size_t i = 0; i < params_.size(); ++i) {
      const LaunchParam& p = params_[i];
      const KernelArg& arg = args[i];
      bool is_array = p.kind == LaunchParam::Kind::array;
      if (is_array != (arg.kind == KernelArg::Kind::array)) {
        throw TypeError(where(i) + ": expected " + (is_array ? "an array." : "a scalar."));
      }
      if (p.count != 1) {
        throw ValueError(where(i) + ": it fills " + std::to_string(p.count) + " kernel parameters; a KernelArg fills "
                         "one, so describe each entry as a parameter of its own.");
      }
      if (!is_array) {
        pack_scalar(i, arg, *frame->slots(i));
        continue;
      }
      const ArrayView& view = arg.view;
      if (view.ndim < p.element_ndim) {
        throw ValueError(where(i) + ": expected at least " + std::to_string(p.element_ndim) + " dimension(s) for its "
                         "vector/matrix elements, but got " + std::to_string(view.ndim) + ".");
      }
      for (int e = view.ndim - p.element_ndim; e < view.ndim; ++e) {
        if (view.shape[e] > 0xffff) {  // element extents live in 16 bits of the signature
          throw ValueError(where(i) + ": a vector/matrix element extent is at most 65535, but got " +
                           std::to_string(view.shape[e]) + ".");
        }
      }
      frame->add_array(i, view, p.element_ndim);
    }
    const Specialization* variant = frame->select(nullptr);
    if (!variant && retried) {
      bool cuda = frame->target().cuda;
      throw ValueError("Kernel '" + name_ + "': the compile callback returned a " + (cuda ? "CPU" : "CUDA") +
                       " kernel, but the launch targets " + (cuda ? "CUDA." : "the CPU."));
    }
    if (!variant) continue;  // the compile chose another target (qd.init): place the arguments there
    const QdArg* values = frame->run(*variant, stream);
    return std::vector<QdArg>(values, values + variant->returns.size());
  }
}

}  // namespace qd
