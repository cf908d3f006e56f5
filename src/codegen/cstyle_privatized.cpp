// src/codegen/cstyle_privatized.cpp: what the CPU and CUDA targets share of privatized atomics
// (passes/privatize_atomics.cpp): identities, the per-thread accumulators of reduced elements and
// locals, and the launch-time test that a privatized array shares no memory with the loop's others.
// How accumulators merge into their targets is each target's own (a chunk's atomic; a warp's).
#include "codegen/array_uses.h"
#include "codegen/cstyle_renderer.h"
#include "ir/ir_equal.h"
#include "quadrants/errors.h"

namespace qd::codegen {

using namespace qd::ir;

namespace {

std::set<std::string> arrays_touched(const Block& body) {
  ArrayUses touched(true, false);  // loaded, stored or updated
  touched.visit(body);
  return touched.names;
}

}  // namespace

std::string CStyleRenderer::privatized_identity(AtomicOp op, DtypeCode type) {
  std::string t = type_name(type);
  if (op == AtomicOp::add) return "(" + t + ")0";
  return "QdLimits<" + t + ">::" + (op == AtomicOp::min ? "highest()" : "lowest()");
}

DtypeCode CStyleRenderer::kernel_local_type(const std::string& name) {
  for (const Stmt& s : top_level_statements(kernel_.body)) {  // the frontend's local names are unique
    if (const Decl* d = as<Decl>(s); d && d->name == name) return *d->declared_type;
  }
  QD_ASSERT(false, "codegen: privatized local " + name + " is not declared in the kernel body");
}

void CStyleRenderer::declare_accumulators(const ParallelFor& loop) {
  for (const Privatized& entry : loop.privatized) {
    if (entry.kind == Privatized::Kind::array || entry.kind == Privatized::Kind::own) continue;
    std::string name = "qd_r" + std::to_string(accumulators_.size());
    DtypeCode type = entry.kind == Privatized::Kind::local ? kernel_local_type(entry.local)
                                                            : kernel_.find_param(entry.ref.array)->dtype;
    emit_line(type_name(type) + " " + name + " = " + privatized_identity(entry.op, type) + ";");
    accumulators_.push_back({&entry, name, type});
  }
}

// privatize_atomics.cpp promises that every atomic on a privatized target is an unused add/sub, min or
// max of the entry's family, so the update needs no result.
std::string CStyleRenderer::accumulator_update(const Atomic& a) {
  std::string op(atomic_op_name(a.op)), value = "(" + type_name(*a.type) + ")(" + expr(a.value) + ")";
  for (const Accumulator& acc : accumulators_) {
    bool match = a.local ? acc.entry->kind == Privatized::Kind::local && acc.entry->local == *a.local
                         : acc.entry->kind == Privatized::Kind::element && same_ref(acc.entry->ref, a.ref);
    if (!match) continue;
    const std::string& name = acc.name;
    if (a.op == AtomicOp::min || a.op == AtomicOp::max) return name + " = qd_" + op + "(" + name + ", " + value + ")";
    if (is_float(*a.type)) {
      return name + " = (" + type_name(*a.type) + ")(" + name + (a.op == AtomicOp::add ? " + " : " - ") + value + ")";
    }
    return name + " = qd_wrapping_" + op + "<" + type_name(*a.type) + ">(" + name + ", " + value + ")";
  }
  return "";
}

void CStyleRenderer::enter_own_arrays(const ParallelFor& loop) {
  own_arrays_.clear();
  for (const Privatized& entry : loop.privatized) {
    if (entry.kind == Privatized::Kind::own) own_arrays_.insert(entry.ref.array);
  }
}

// No other iteration reaches the element (own_element_atomics.cpp) and no other array of the loop shares its
// memory (the version this is emitted in runs only then), so the atomic's combine step is done plainly.
std::string CStyleRenderer::own_update(const Atomic& a) {
  return a.local || !own_arrays_.count(a.ref.array) ? "" : plain_update(a);
}

// Half and bool elements keep their atomics (their update steps are not the plain ones).
std::string CStyleRenderer::plain_update(const Atomic& a) {
  if (a.local || *a.type == DtypeCode::f16 || *a.type == DtypeCode::u1) return "";
  std::string t = type_name(*a.type), cast = "(" + t + ")(";
  std::string operands = (a.expected ? cast + expr(a.expected) + "), " : "") + cast + expr(a.value) + ")";
  std::string target = kernel_.options.checks_bounds()
                           ? "qd_checked_ptr(a_" + a.ref.array + ", " + element_offset(a.ref) + ")"
                           : "&" + element(a.ref);
  return "qd_local_" + std::string(atomic_op_name(a.op)) + "(" + target + ", " + operands + ")";
}

std::string CStyleRenderer::accumulator_target(const Accumulator& acc) {
  return acc.entry->kind == Privatized::Kind::local ? local_name(acc.entry->local) : element(acc.entry->ref);
}

std::string CStyleRenderer::separate_arrays(const ParallelFor& loop) {
  std::set<std::string> privatized;
  for (const Privatized& entry : loop.privatized) {
    if (entry.kind != Privatized::Kind::local) privatized.insert(entry.ref.array);
  }
  std::string test = "true";
  for (const std::string& other : arrays_touched(loop.body)) {
    for (const std::string& mine : privatized) {
      if (other == mine) continue;
      const Param &a = *kernel_.find_param(mine), &b = *kernel_.find_param(other);
      test += " && !qd_args_overlap(&args[" + std::to_string(param_index(kernel_, mine)) + "], " +
              std::to_string(a.total_dims()) + ", sizeof(" + type_name(a.dtype) + "), &args[" +
              std::to_string(param_index(kernel_, other)) + "], " + std::to_string(b.total_dims()) + ", sizeof(" +
              type_name(b.dtype) + "))";
    }
  }
  return test;
}

}  // namespace qd::codegen
