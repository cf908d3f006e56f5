// src/codegen/array_uses.h: the array params a block of IR touches, for the renderers' per-block decisions.
#pragma once

#include <set>
#include <string>

#include "ir/ir_mutator.h"

namespace qd::codegen {

// Collects array names: always those a store or an array atomic writes; with `loads` those loaded; with
// `shapes` those whose extents are read.
class ArrayUses : public ir::IRVisitor {
 public:
  ArrayUses(bool loads, bool shapes) : loads_(loads), shapes_(shapes) {}
  std::set<std::string> names;

 private:
  void visit_load(const ir::Load& e) override {
    if (loads_) names.insert(e.ref.array);
    IRVisitor::visit_load(e);
  }
  void visit_store(const ir::Store& s) override {
    names.insert(s.ref.array);
    IRVisitor::visit_store(s);
  }
  void visit_atomic(const ir::Atomic& e) override {
    if (!e.local) names.insert(e.ref.array);
    IRVisitor::visit_atomic(e);
  }
  void visit_shape(const ir::Shape& e) override {
    if (shapes_) names.insert(e.array);
    IRVisitor::visit_shape(e);
  }
  bool loads_, shapes_;
};

}  // namespace qd::codegen
