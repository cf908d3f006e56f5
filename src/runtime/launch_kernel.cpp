// src/runtime/launch_kernel.cpp: the C++ entry point for running a compiled kernel on caller-owned memory.
#include <algorithm>
#include <string>

#include "quadrants/errors.h"
#include "quadrants/launch.h"
#include "runtime/launch.h"

namespace qd {
namespace {

void check_array(const CompiledKernel& kernel, const KernelParam& param, const ArrayView& view) {
  std::string where = "Kernel '" + kernel.name + "' argument '" + param.name + "'";
  int dims = param.ndim + static_cast<int>(param.element_shape.size());
  if (view.dtype != param.dtype) {
    throw TypeError(where + ": expected dtype " + std::string(dtype_name(param.dtype)) + ", but got " +
                    std::string(dtype_name(view.dtype)) + ".");
  }
  if (view.ndim != dims) {
    throw ValueError(where + ": expected " + std::to_string(dims) + " dimension(s) including element dimensions, "
                     "but got " + std::to_string(view.ndim) + ".");
  }
  for (size_t e = 0; e < param.element_shape.size(); ++e) {
    if (view.shape[param.ndim + e] != param.element_shape[e]) {
      throw ValueError(where + ": element dimension " + std::to_string(e) + " must be " +
                       std::to_string(param.element_shape[e]) + ", but got " +
                       std::to_string(view.shape[param.ndim + e]) + ".");
    }
  }
  if (param.contiguous && !view.is_contiguous()) {
    throw ValueError(where + ": this kernel was compiled for contiguous arrays, but the view is strided; "
                     "export the kernel with a strided example argument.");
  }
  if (param.writable && !view.writable) {
    throw ValueError(where + ": the kernel may write this argument, but the view is read-only.");
  }
  if (view.device.kind != DeviceId::Kind::cpu) throw ValueError(where + ": expected host memory.");
}

}  // namespace

QdArg launch_kernel(const CompiledKernel& kernel, const std::vector<KernelArg>& args, std::vector<QdArg>* returns) {
  if (args.size() != kernel.params.size()) {
    throw TypeError("Kernel '" + kernel.name + "' takes " + std::to_string(kernel.params.size()) +
                    " argument(s), but " + std::to_string(args.size()) + " were given.");
  }
  if (args.size() > static_cast<size_t>(kMaxKernelArgs)) throw ValueError("Too many kernel arguments.");
  QdArg packed[kMaxKernelArgs];
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParam& param = kernel.params[i];
    const KernelArg& arg = args[i];
    names.push_back(param.name);
    bool is_array = param.kind == KernelParam::Kind::array;
    if (is_array != (arg.kind == KernelArg::Kind::array)) {
      throw TypeError("Kernel '" + kernel.name + "' argument '" + param.name + "': expected " +
                      (is_array ? "an array" : "a scalar") + ".");
    }
    if (is_array) {
      check_array(kernel, param, arg.view);
      packed[i].data = arg.view.data;
      for (int d = 0; d < arg.view.ndim; ++d) {
        packed[i].shape[d] = arg.view.shape[d];
        packed[i].strides[d] = arg.view.strides[d];
      }
    } else if (is_float(param.dtype)) {
      packed[i].scalar.f = arg.kind == KernelArg::Kind::floating ? arg.floating : static_cast<double>(arg.integer);
    } else {
      if (arg.kind == KernelArg::Kind::floating) {
        throw TypeError("Kernel '" + kernel.name + "' argument '" + param.name + "': expected an integer for " +
                        std::string(dtype_name(param.dtype)) + ", but got a float.");
      }
      packed[i].scalar.i = arg.integer;
    }
  }
  Specialization spec;
  spec.entry = kernel.entry;
  spec.returns = kernel.returns;
  spec.assert_messages = &kernel.assert_messages;
  std::vector<QdArg> values(std::max<size_t>(1, kernel.returns.size()));
  run_entry(spec, packed, values.data(), kernel.name, names);
  if (returns) returns->assign(values.begin(), values.begin() + kernel.returns.size());
  return values[0];
}

}  // namespace qd
