// src/launch/launch_kernel.cpp: launch_kernel, a one-off KernelLauncher around a kernel the caller compiled.
#include <string>

#include "quadrants/errors.h"
#include "quadrants/launch.h"

namespace qd {
namespace {

// launch_kernel's doc says that host arrays are copied for a CUDA kernel; it does not repeat that per call.
class QuietHooks : public LaunchHooks {
 public:
  void warn(const std::string&) override {}
};

// One parameter per kernel parameter, so the launcher checks the arguments against the kernel itself.
QdArg launch_compiled(const std::string& name, const std::vector<KernelParam>& params, const CompiledVariant& variant,
                      Target target, const std::vector<KernelArg>& args, std::vector<QdArg>* returns,
                      CUstream stream) {
  std::vector<LaunchParam> launch_params;
  for (const KernelParam& p : params) {
    bool is_array = p.kind == KernelParam::Kind::array;
    launch_params.push_back({is_array ? LaunchParam::Kind::array : LaunchParam::Kind::scalar, p.name, p.dtype, 1,
                             static_cast<int>(p.element_shape.size())});
  }
  KernelLauncher launcher(name, std::move(launch_params), [&variant](const CompileRequest&) { return variant; });
  launcher.pin_target(target);
  QuietHooks hooks;
  std::vector<QdArg> values = launcher.launch(args, hooks, stream);
  QdArg first{};
  if (!values.empty()) first = values[0];
  if (returns) *returns = std::move(values);
  return first;
}

}  // namespace

QdArg launch_kernel(const CompiledKernel& kernel, const std::vector<KernelArg>& args, std::vector<QdArg>* returns) {
  // The caller owns the kernel and keeps it loaded for the call.
  std::shared_ptr<const CompiledKernel> borrowed(&kernel, [](const CompiledKernel*) {});
  return launch_compiled(kernel.name, kernel.params, CompiledVariant{borrowed, nullptr, {}}, Target{}, args, returns,
                         nullptr);
}

QdArg launch_kernel(const std::shared_ptr<const CudaCompiledKernel>& kernel, const std::vector<KernelArg>& args,
                    std::vector<QdArg>* returns, int device, CUstream stream) {
  if (!kernel) throw ValueError("launch_kernel(): the CUDA kernel is null.");
  return launch_compiled(kernel->name, kernel->params, CompiledVariant{nullptr, kernel, {}}, Target{true, device}, args,
                         returns, stream);
}

}  // namespace qd
