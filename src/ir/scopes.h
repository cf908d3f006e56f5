// src/ir/scopes.h: block-structured scopes of locals, shared by the checks, type inference and codegen.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quadrants/dtype.h"

namespace qd::ir {

struct LocalInfo {
  std::optional<DtypeCode> type;  // empty until inferred
  bool is_loop_var = false;
  int depth = 0;  // scope depth of the declaration; 1 is the kernel body
};

// A local declared in a block is visible in that block and every block nested in it; an inner
// declaration of the same name shadows the outer one.
class Scopes {
 public:
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  int depth() const { return static_cast<int>(scopes_.size()); }
  // False when the name is already declared in the innermost scope.
  bool declare(const std::string& name, std::optional<DtypeCode> type, bool is_loop_var = false) {
    return scopes_.back().emplace(name, LocalInfo{type, is_loop_var, depth()}).second;
  }
  const LocalInfo* find(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }

 private:
  std::vector<std::map<std::string, LocalInfo>> scopes_;
};

}  // namespace qd::ir
