// src/codegen/int_ranges.cpp: interval arithmetic over typed IR expressions (see int_ranges.h).
#include "codegen/int_ranges.h"

#include <algorithm>

#include "ir/ir_equal.h"

namespace qd::codegen {
namespace {

using namespace qd::ir;

// Exact bounds: sums, differences and products of two int64 values fit in 128 bits.
using Wide = __int128;

std::optional<IntRange> type_range(DtypeCode t) {
  switch (t) {
    case DtypeCode::u1: return IntRange{0, 1};
    case DtypeCode::i8: return IntRange{INT8_MIN, INT8_MAX};
    case DtypeCode::i16: return IntRange{INT16_MIN, INT16_MAX};
    case DtypeCode::i32: return IntRange{INT32_MIN, INT32_MAX};
    case DtypeCode::i64: return IntRange{INT64_MIN, INT64_MAX};
    case DtypeCode::u8: return IntRange{0, UINT8_MAX};
    case DtypeCode::u16: return IntRange{0, UINT16_MAX};
    case DtypeCode::u32: return IntRange{0, UINT32_MAX};
    default: return std::nullopt;  // u64 (beyond int64) and floats
  }
}

bool fits(Wide lo, Wide hi, DtypeCode t) {
  std::optional<IntRange> whole = type_range(t);
  return whole && lo >= whole->lo && hi <= whole->hi;
}

// The exact [lo, hi] when the type holds all of it; otherwise the operation may wrap to any value.
std::optional<IntRange> fit(Wide lo, Wide hi, DtypeCode t) {
  if (fits(lo, hi, t)) return IntRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  return type_range(t);
}

// The exact bounds of x op y for add, sub and mul.
std::pair<Wide, Wide> exact(BinOp op, IntRange x, IntRange y) {
  if (op == BinOp::add) return {Wide(x.lo) + y.lo, Wide(x.hi) + y.hi};
  if (op == BinOp::sub) return {Wide(x.lo) - y.hi, Wide(x.hi) - y.lo};
  Wide corners[] = {Wide(x.lo) * y.lo, Wide(x.lo) * y.hi, Wide(x.hi) * y.lo, Wide(x.hi) * y.hi};
  return {*std::min_element(corners, corners + 4), *std::max_element(corners, corners + 4)};
}

int64_t floor_div(int64_t a, int64_t c) {  // c > 0
  int64_t q = a / c;
  return (a % c != 0 && a < 0) ? q - 1 : q;
}

std::optional<int64_t> positive_constant(const std::optional<IntRange>& r) {
  if (r && r->lo == r->hi && r->lo > 0) return r->lo;
  return std::nullopt;
}

bool is_comparison(BinOp op) {
  return op == BinOp::eq || op == BinOp::ne || op == BinOp::lt || op == BinOp::le || op == BinOp::gt ||
         op == BinOp::ge || op == BinOp::logical_and || op == BinOp::logical_or;
}

}  // namespace

void IntRanges::push(bool opaque) {
  scopes_.push_back({opaque, {}, {}});
  cache_.clear();
}

void IntRanges::pop() {
  scopes_.pop_back();
  cache_.clear();
}

void IntRanges::bind(const std::string& name, std::optional<IntRange> range) {
  scopes_.back().names[name] = range;
  cache_.clear();
}

std::optional<IntRange> IntRanges::of(const Expr& e) {
  auto hit = cache_.find(e.get());
  if (hit != cache_.end()) return hit->second;
  std::optional<IntRange> r = compute(e);
  cache_.emplace(e.get(), r);
  return r;
}

std::optional<IntRange> IntRanges::of_as(const Expr& e, DtypeCode t) {
  if (!e->type || is_float(*e->type)) return type_range(t);
  if (t == DtypeCode::u1) return IntRange{0, 1};
  std::optional<IntRange> r = of(e);
  return r && fits(r->lo, r->hi, t) ? r : type_range(t);
}

bool IntRanges::may_overflow(BinOp op, const Expr& a, const Expr& b, DtypeCode type) {
  if (std::optional<IntRange> sum = op == BinOp::add ? offset_sum(a, b) : std::nullopt) return !fits(sum->lo, sum->hi, type);
  std::optional<IntRange> x = of(a), y = of(b);
  if (!x || !y) return true;
  auto [lo, hi] = exact(op, *x, *y);
  return !fits(lo, hi, type);
}

bool IntRanges::may_overflow_neg(const Expr& a, DtypeCode type) {
  std::optional<IntRange> x = of(a);
  return !x || !fits(-Wide(x->hi), -Wide(x->lo), type);
}

std::optional<IntRange> IntRanges::loop_range(const Expr* begin, const Expr& end, DtypeCode type) {
  std::optional<IntRange> whole = type_range(type);
  std::optional<IntRange> first = begin ? of(*begin) : IntRange{0, 0}, stop = of(end);
  // An end the type cannot hold wraps (a parallel loop's variable is its flat index converted).
  if (!whole || !first || !stop || !fits(first->lo, first->hi, type) || !fits(stop->lo, stop->hi, type)) return whole;
  // The variable stays below the end, itself a value of the type; an empty loop binds nothing used.
  return IntRange{first->lo, std::max(first->lo, stop->hi - 1)};
}

void IntRanges::bind_offset(const std::string& var, const Expr& extent) {
  const Binary* difference = as<Binary>(extent);
  const Binary* top = difference && difference->op == BinOp::sub ? as<Binary>(difference->a) : nullptr;
  if (!top || top->op != BinOp::max || !extent->type) return;
  const Expr& begin = difference->b;
  if (!same_expr(top->b, begin)) return;
  // The begin must read the same value in the body: no memory, no assigned local.
  const Var* local = as<Var>(begin);
  bool invariant = begin->kind == ExprKind::constant || begin->kind == ExprKind::arg ||
                   begin->kind == ExprKind::shape || (local && lookup_bound(local->name));
  std::optional<IntRange> first = of(begin), stop = of(top->a);
  if (!invariant || !first || !stop) return;
  scopes_.back().offsets[var] = Offset{begin, IntRange{first->lo, std::max(first->lo, stop->hi - 1)}};
  cache_.clear();
}

// var + B (either order) for a variable bound by bind_offset with that B.
std::optional<IntRange> IntRanges::offset_sum(const Expr& a, const Expr& b) {
  for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    const Var* v = as<Var>(*x);
    if (!v) continue;
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      if (scope->names.count(v->name) && !scope->offsets.count(v->name)) break;  // shadowed
      auto found = scope->offsets.find(v->name);
      if (found != scope->offsets.end()) {
        if (same_expr(*y, found->second.begin)) return found->second.sum;
        break;
      }
      if (scope->opaque) break;
    }
  }
  return std::nullopt;
}

// Whether a local is bound to a known range (declared once, never assigned) in the scopes visible here.
bool IntRanges::lookup_bound(const std::string& name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto found = scope->names.find(name);
    if (found != scope->names.end()) return found->second.has_value();
    if (scope->opaque) break;
  }
  return false;
}

std::optional<IntRange> IntRanges::lookup(const Var& v) {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto found = scope->names.find(v.name);
    if (found != scope->names.end()) return found->second ? found->second : type_range(*v.type);
    if (scope->opaque) break;
  }
  return type_range(*v.type);
}

std::optional<IntRange> IntRanges::compute(const Expr& e) {
  if (!e->type || is_float(*e->type)) return std::nullopt;
  DtypeCode t = *e->type;
  switch (e->kind) {
    case ExprKind::constant: {
      int64_t v = as<Const>(e)->int_value;
      if (t == DtypeCode::u64 && v < 0) return std::nullopt;
      return IntRange{v, v};
    }
    case ExprKind::var: return lookup(*as<Var>(e));
    case ExprKind::shape: {  // an extent; one read as i32 that does not fit is an error at launch
      std::optional<IntRange> whole = type_range(t);
      return whole ? std::optional<IntRange>(IntRange{0, whole->hi}) : std::nullopt;
    }
    case ExprKind::cast: return of_as(as<Cast>(e)->a, t);
    case ExprKind::binary: return binary(*as<Binary>(e));
    case ExprKind::unary: return unary(*as<Unary>(e));
    case ExprKind::select: {
      const Select& s = *as<Select>(e);
      std::optional<IntRange> a = of_as(s.a, t), b = of_as(s.b, t);
      if (!a || !b) return type_range(t);
      return IntRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    default: return type_range(t);  // loads, params, atomics, bit casts, ...
  }
}

std::optional<IntRange> IntRanges::binary(const Binary& b) {
  DtypeCode t = *b.type;
  if (is_comparison(b.op)) return IntRange{0, 1};
  std::optional<IntRange> x = of(b.a), y = of(b.b);
  if (!x || !y || b.a->type != t || b.b->type != t) return type_range(t);
  switch (b.op) {
    case BinOp::add:
    case BinOp::sub:
    case BinOp::mul: {
      if (b.op == BinOp::add) {
        if (std::optional<IntRange> sum = offset_sum(b.a, b.b)) return sum;
      }
      auto [lo, hi] = exact(b.op, *x, *y);
      return fit(lo, hi, t);
    }
    case BinOp::min: return IntRange{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
    case BinOp::max: return IntRange{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
    case BinOp::floordiv:
      if (std::optional<int64_t> c = positive_constant(y)) return IntRange{floor_div(x->lo, *c), floor_div(x->hi, *c)};
      break;
    case BinOp::mod:  // Python's sign: the divisor's
      if (std::optional<int64_t> c = positive_constant(y)) {
        return x->lo >= 0 && x->hi < *c ? *x : IntRange{0, *c - 1};
      }
      break;
    case BinOp::bit_and:
      if (x->lo >= 0 && y->lo >= 0) return IntRange{0, std::min(x->hi, y->hi)};
      if (x->lo >= 0 || y->lo >= 0) return IntRange{0, x->lo >= 0 ? x->hi : y->hi};
      break;
    default: break;
  }
  return type_range(t);
}

std::optional<IntRange> IntRanges::unary(const Unary& u) {
  DtypeCode t = *u.type;
  switch (u.op) {
    case UnOp::logical_not:
    case UnOp::isnan:
    case UnOp::isinf: return IntRange{0, 1};
    case UnOp::popcnt:
    case UnOp::clz:
    case UnOp::ffs: return IntRange{0, 64};
    default: break;
  }
  std::optional<IntRange> x = of(u.a);
  if (!x || u.a->type != t) return type_range(t);
  if (u.op == UnOp::neg) return fit(-Wide(x->hi), -Wide(x->lo), t);
  if (u.op == UnOp::abs) {
    Wide low = Wide(x->lo), high = Wide(x->hi);
    Wide most = std::max(low < 0 ? -low : low, high < 0 ? -high : high);
    Wide least = low <= 0 && high >= 0 ? 0 : std::min(low < 0 ? -low : low, high < 0 ? -high : high);
    return fit(least, most, t);
  }
  return type_range(t);
}

}  // namespace qd::codegen
