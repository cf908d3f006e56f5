// src/codegen/cstyle_functions.cpp: the kernel's functions (@qd.real_func) as member functions of one struct.
//
// A function body reaches arrays through the kernel's array params, which the entry unpacks into
// locals (a_NAME, extents, strides). The generated struct QdFunctions holds copies of the ones the
// functions use, under the same names, plus `args` and `ctx` for debug checks, so a body renders
// exactly like kernel code; the functions are its const members, so they can call each other and
// themselves in any order (C++ class scope), and a CPU closure copies the instance `qd_fn` like any
// other captured value. Each function returns a struct qd_ret_NAME with one member per returned
// value (empty for void), so `return {};` ends any function early after a failed debug check.
#include <set>

#include "codegen/array_uses.h"
#include "codegen/cstyle_renderer.h"
#include "ir/ir_mutator.h"
#include "quadrants/errors.h"

namespace qd::codegen {

using namespace qd::ir;

namespace {

std::string return_type(const Function& f) { return "qd_ret_" + f.name; }

}  // namespace

// In kernel param order, so the instance's initializer follows the struct's members.
std::vector<std::string> CStyleRenderer::function_arrays() const {
  ArrayUses used(true, true);
  visit_functions(used, kernel_);
  std::vector<std::string> out;
  for (const Param& p : kernel_.params) {
    if (p.kind == Param::Kind::array && used.names.count(p.name)) out.push_back(p.name);
  }
  return out;
}

void CStyleRenderer::emit_functions() {
  if (kernel_.functions.empty()) return;
  for (const Function& f : kernel_.functions) {
    out_ += "struct " + return_type(f) + " {";
    for (size_t k = 0; k < f.returns.size(); ++k) out_ += " " + type_name(f.returns[k]) + " r" + std::to_string(k) + ";";
    out_ += " };\n";
  }
  out_ += "struct QdFunctions {\n";
  indent_ = 2;
  emit_line("const QdArg* args;");
  emit_line("const QdLaunchContext* ctx;");
  for (const std::string& name : function_arrays()) {
    const Param& p = *kernel_.find_param(name);
    emit_line(type_name(p.dtype) + "* a_" + name + ";");
    for (int d = 0; d < p.total_dims(); ++d) emit_line("int64_t " + extent_name(name, d) + ";");
    for (int d = 0; d < p.total_dims() && !p.contiguous; ++d) emit_line("int64_t t" + std::to_string(d) + "_" + name + ";");
  }
  for (const Function& f : kernel_.functions) emit_function(f);
  out_ += "};\n\n";
  indent_ = 0;
}

void CStyleRenderer::emit_function(const Function& f) {
  std::string params;
  for (const FunctionParam& p : f.params) {
    params += (params.empty() ? "" : ", ") + type_name(p.type) + (p.kind == FunctionParam::Kind::ref ? "& " : " ") +
              local_name(p.name);
  }
  emit_line(function_qualifier() + return_type(f) + " f_" + f.name + "(" + params + ") const {");
  current_function_ = &f;
  ranges_.push(true);  // the params are unknown; no kernel local is in scope
  emit_block(f.body);
  ranges_.pop();
  current_function_ = nullptr;
  emit_line("  return {};");  // a path that ends without a return gives zeros, never garbage
  emit_line("}");
}

// The members in declaration order: args, ctx, then each array's pointer, extents and strides.
void CStyleRenderer::emit_functions_instance() {
  if (kernel_.functions.empty()) return;
  std::string members = "args, ctx";
  for (const std::string& name : function_arrays()) {
    const Param& p = *kernel_.find_param(name);
    members += ", a_" + name;
    for (int d = 0; d < p.total_dims(); ++d) members += ", " + extent_name(name, d);
    for (int d = 0; d < p.total_dims() && !p.contiguous; ++d) members += ", t" + std::to_string(d) + "_" + name;
  }
  emit_line("const QdFunctions qd_fn{" + members + "};");
  emit_line("(void)qd_fn;");
}

void CStyleRenderer::emit_call(const Call& c) {
  std::string args;
  for (size_t i = 0; i < c.args.size(); ++i) {
    args += (i ? ", " : "") + (c.by_ref[i] ? local_name(as<Var>(c.args[i])->name) : expr(c.args[i]));
  }
  std::string call = std::string(current_function_ ? "" : "qd_fn.") + "f_" + c.function + "(" + args + ")";
  if (c.results.empty()) {
    emit_line("(void)" + call + ";");
    return;
  }
  emit_line("{");
  emit_line("  const " + return_type(*kernel_.find_function(c.function)) + " qd_r = " + call + ";");
  for (size_t k = 0; k < c.results.size(); ++k) {
    emit_line("  " + local_name(c.results[k]) + " = qd_r.r" + std::to_string(k) + ";");
  }
  emit_line("}");
}

void CStyleRenderer::emit_function_return(const Return& r) {
  std::string values;
  for (size_t k = 0; k < r.values.size(); ++k) values += (k ? ", " : "") + expr(r.values[k]);
  emit_line("return " + return_type(*current_function_) + "{" + values + "};");
}

}  // namespace qd::codegen
