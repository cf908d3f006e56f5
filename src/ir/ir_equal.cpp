// src/ir/ir_equal.cpp: structural equality and hashing of IR expressions (see ir_equal.h).
#include "ir/ir_equal.h"

#include <cstring>
#include <functional>

namespace qd::ir {
namespace {

bool same_float(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same_expr(a[i], b[i])) return false;
  }
  return true;
}

bool same_element_index(const Expr& a, const Expr& b) {
  std::optional<int64_t> x = constant_index(a), y = constant_index(b);
  if (x || y) return x == y;
  return same_expr(a, b);
}

bool same_const(const Const& a, const Const& b) {
  if (a.literal != b.literal || a.holds_float() != b.holds_float()) return false;
  return a.holds_float() ? same_float(a.float_value, b.float_value) : a.int_value == b.int_value;
}

// Only called on nodes of the same kind and type.
bool same_node(const ExprNode& a, const ExprNode& b) {
  switch (a.kind) {
    case ExprKind::constant: return same_const(static_cast<const Const&>(a), static_cast<const Const&>(b));
    case ExprKind::var: return static_cast<const Var&>(a).name == static_cast<const Var&>(b).name;
    case ExprKind::arg: return static_cast<const Arg&>(a).name == static_cast<const Arg&>(b).name;
    case ExprKind::binary: {
      const auto &x = static_cast<const Binary&>(a), &y = static_cast<const Binary&>(b);
      return x.op == y.op && same_expr(x.a, y.a) && same_expr(x.b, y.b);
    }
    case ExprKind::unary: {
      const auto &x = static_cast<const Unary&>(a), &y = static_cast<const Unary&>(b);
      return x.op == y.op && same_expr(x.a, y.a);
    }
    case ExprKind::cast: {
      const auto &x = static_cast<const Cast&>(a), &y = static_cast<const Cast&>(b);
      return x.to == y.to && same_expr(x.a, y.a);
    }
    case ExprKind::bit_cast: {
      const auto &x = static_cast<const BitCast&>(a), &y = static_cast<const BitCast&>(b);
      return x.to == y.to && same_expr(x.a, y.a);
    }
    case ExprKind::select: {
      const auto &x = static_cast<const Select&>(a), &y = static_cast<const Select&>(b);
      return same_expr(x.cond, y.cond) && same_expr(x.a, y.a) && same_expr(x.b, y.b);
    }
    case ExprKind::load: return same_ref(static_cast<const Load&>(a).ref, static_cast<const Load&>(b).ref);
    case ExprKind::shape: {
      const auto &x = static_cast<const Shape&>(a), &y = static_cast<const Shape&>(b);
      return x.array == y.array && x.dim == y.dim;
    }
    case ExprKind::atomic: {
      const auto &x = static_cast<const Atomic&>(a), &y = static_cast<const Atomic&>(b);
      if (x.op != y.op || x.local != y.local) return false;
      if (!x.local && !same_ref(x.ref, y.ref)) return false;
      return same_expr(x.value, y.value) && same_expr(x.expected, y.expected);
    }
    case ExprKind::ad_top: return static_cast<const AdTop&>(a).stack == static_cast<const AdTop&>(b).stack;
    case ExprKind::clock_counter: return true;  // the same text; two reads still give two values
    case ExprKind::simt: {
      const auto &x = static_cast<const Simt&>(a), &y = static_cast<const Simt&>(b);
      return x.op == y.op && x.shared == y.shared && x.atomic_op == y.atomic_op && same_exprs(x.args, y.args);
    }
  }
  return false;
}

void mix(size_t& seed, size_t value) { seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2); }

template <class E>
size_t code(E e) {
  return static_cast<size_t>(e);
}

size_t hash_string(const std::string& s) { return std::hash<std::string>{}(s); }

size_t hash_element_index(const Expr& e) {
  if (std::optional<int64_t> constant = constant_index(e)) return static_cast<size_t>(*constant) * 31 + 7;
  return hash_expr(e);
}

size_t hash_node(const ExprNode& e) {
  size_t h = code(e.kind);
  mix(h, e.type ? code(*e.type) + 1 : 0);
  switch (e.kind) {
    case ExprKind::constant: {
      const auto& c = static_cast<const Const&>(e);
      mix(h, code(c.literal));
      if (c.holds_float()) {
        uint64_t bits;
        std::memcpy(&bits, &c.float_value, sizeof bits);
        mix(h, static_cast<size_t>(bits));
      } else {
        mix(h, static_cast<size_t>(c.int_value));
      }
      break;
    }
    case ExprKind::var: mix(h, hash_string(static_cast<const Var&>(e).name)); break;
    case ExprKind::arg: mix(h, hash_string(static_cast<const Arg&>(e).name)); break;
    case ExprKind::binary: {
      const auto& b = static_cast<const Binary&>(e);
      mix(h, code(b.op));
      mix(h, hash_expr(b.a));
      mix(h, hash_expr(b.b));
      break;
    }
    case ExprKind::unary:
      mix(h, code(static_cast<const Unary&>(e).op));
      mix(h, hash_expr(static_cast<const Unary&>(e).a));
      break;
    case ExprKind::cast:
      mix(h, code(static_cast<const Cast&>(e).to));
      mix(h, hash_expr(static_cast<const Cast&>(e).a));
      break;
    case ExprKind::bit_cast:
      mix(h, code(static_cast<const BitCast&>(e).to));
      mix(h, hash_expr(static_cast<const BitCast&>(e).a));
      break;
    case ExprKind::select: {
      const auto& s = static_cast<const Select&>(e);
      for (const Expr* operand : {&s.cond, &s.a, &s.b}) mix(h, hash_expr(*operand));
      break;
    }
    case ExprKind::load: mix(h, hash_ref(static_cast<const Load&>(e).ref)); break;
    case ExprKind::shape:
      mix(h, hash_string(static_cast<const Shape&>(e).array));
      mix(h, static_cast<size_t>(static_cast<const Shape&>(e).dim));
      break;
    case ExprKind::atomic: {
      const auto& a = static_cast<const Atomic&>(e);
      mix(h, code(a.op));
      mix(h, a.local ? hash_string(*a.local) : hash_ref(a.ref));
      mix(h, hash_expr(a.value));
      mix(h, hash_expr(a.expected));
      break;
    }
    case ExprKind::ad_top: mix(h, hash_string(static_cast<const AdTop&>(e).stack)); break;
    case ExprKind::clock_counter: break;
    case ExprKind::simt: {
      const auto& m = static_cast<const Simt&>(e);
      mix(h, code(m.op));
      mix(h, hash_string(m.shared));
      mix(h, code(m.atomic_op));
      for (const Expr& arg : m.args) mix(h, hash_expr(arg));
      break;
    }
  }
  return h;
}

}  // namespace

bool same_expr(const Expr& a, const Expr& b) {
  if (a == b) return true;  // the same node, or both null
  if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
  return same_node(*a, *b);
}

bool same_ref(const ArrayRef& a, const ArrayRef& b) {
  if (a.array != b.array || !same_exprs(a.indices, b.indices)) return false;
  if (a.element_indices.size() != b.element_indices.size()) return false;
  for (size_t i = 0; i < a.element_indices.size(); ++i) {
    if (!same_element_index(a.element_indices[i], b.element_indices[i])) return false;
  }
  return true;
}

size_t hash_expr(const Expr& e) { return e ? hash_node(*e) : 0x51ed27u; }

size_t hash_ref(const ArrayRef& ref) {
  size_t h = hash_string(ref.array);
  for (const Expr& i : ref.indices) mix(h, hash_expr(i));
  mix(h, ref.indices.size());
  for (const Expr& i : ref.element_indices) mix(h, hash_element_index(i));
  return h;
}

}  // namespace qd::ir
