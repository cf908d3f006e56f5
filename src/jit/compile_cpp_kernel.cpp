// src/jit/compile_cpp_kernel.cpp: hand-written C++ kernels: an entry-point wrapper around the user's function.
#include <cctype>
#include <sstream>

#include "jit/compiler.h"
#include "quadrants/errors.h"
#include "quadrants/jit.h"

namespace qd {
namespace {

// The C++ expression that turns args[i] into the user's parameter type.
std::string argument(const KernelParam& p, size_t i) {
  std::string type(dtype_info(p.dtype).c_type);
  std::string index = "args[" + std::to_string(i) + "]";
  if (p.kind == KernelParam::Kind::array) {
    int dims = p.ndim + static_cast<int>(p.element_shape.size());
    return "qd::Ndarray<" + type + ", " + std::to_string(dims) + ">(" + index + ")";
  }
  return "static_cast<" + type + ">(" + index + (is_float(p.dtype) ? ".scalar.f)" : ".scalar.i)");
}

std::string wrapper(const std::string& name, const std::vector<KernelParam>& params,
                    std::optional<DtypeCode> returns) {
  std::ostringstream out;
  out << "\nextern \"C\" void " << QD_KERNEL_ENTRY_SYMBOL
      << "(const QdArg* args, const QdLaunchContext* ctx, QdArg* ret) {\n"
      << "  qd::detail::launch_context = ctx;\n  ";
  if (returns) out << (is_float(*returns) ? "ret->scalar.f = " : "ret->scalar.i = ");
  out << name << "(";
  for (size_t i = 0; i < params.size(); ++i) out << (i ? ", " : "") << argument(params[i], i);
  out << ");\n";
  if (!returns) out << "  (void)ret;\n";
  out << "}\n";
  return out.str();
}

}  // namespace

std::shared_ptr<const CompiledKernel> compile_cpp_kernel(const std::string& name, const std::string& source,
                                                         const std::vector<KernelParam>& params,
                                                         std::optional<DtypeCode> returns) {
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      throw ValueError("A C++ kernel's name must be a C++ identifier, but got '" + name + "'.");
    }
  }
  std::string full = "#include \"qd_cpp_kernel.h\"\n#line 1 \"" + name + ".cpp\"\n" + source +
                     wrapper(name, params, returns);
  full = jit::expand_embedded_includes(full);
  jit::LoadedLibrary lib = jit::compile_and_load(name, full, false, false);
  auto out = std::make_shared<CompiledKernel>();
  out->name = name;
  out->entry = lib.entry;
  if (returns) out->returns.push_back(*returns);
  out->source = std::move(full);
  out->library_path = lib.library_path;
  out->num_params = static_cast<int>(params.size());
  out->params = params;
  out->library = lib.handle;
  return out;
}

}  // namespace qd
