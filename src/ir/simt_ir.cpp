// src/ir/simt_ir.cpp: make() and the op names of the block/subgroup (qd.simt) nodes.
#include <array>

#include "ir/ir.h"

namespace qd::ir {
namespace {

// Indexed by the enums' values; the text form's spelling (docs/IR.md, "Blocks and subgroups").
constexpr std::array<std::string_view, 19> kSimtOpNames = {
    "thread_idx", "block_idx", "block_dim", "lane",       "global_thread_idx", "shuffle",     "shuffle_down",
    "shuffle_up", "shuffle_xor", "ballot",  "all",        "any",               "sync_all",    "sync_any",
    "sync_count", "lowest",      "highest", "shared_load", "shared_atomic"};
constexpr std::array<std::string_view, 7> kSimtStmtOpNames = {"shared",          "shared_store",   "sync block",
                                                              "sync subgroup",   "fence block",    "fence subgroup",
                                                              "fence grid"};

}  // namespace

Expr Simt::make(SimtOp op, std::vector<Expr> args, std::optional<DtypeCode> type, std::string shared,
                AtomicOp atomic_op) {
  return std::make_shared<Simt>(op, std::move(args), type, std::move(shared), atomic_op);
}

Stmt SimtStmt::make(SimtStmtOp op, std::string shared, DtypeCode dtype, std::vector<int64_t> shape,
                    std::vector<Expr> args, SourceLoc loc) {
  return std::make_shared<SimtStmt>(op, std::move(shared), dtype, std::move(shape), std::move(args), loc);
}

bool simt_waits(SimtOp op) {
  switch (op) {
    case SimtOp::shuffle: case SimtOp::shuffle_down: case SimtOp::shuffle_up: case SimtOp::shuffle_xor:
    case SimtOp::ballot: case SimtOp::vote_all: case SimtOp::vote_any:
    case SimtOp::sync_all: case SimtOp::sync_any: case SimtOp::sync_count:
      return true;
    default:
      return false;
  }
}

bool simt_waits(SimtStmtOp op) { return op == SimtStmtOp::sync_block || op == SimtStmtOp::sync_subgroup; }

std::string_view simt_op_name(SimtOp op) { return kSimtOpNames[static_cast<size_t>(op)]; }
std::string_view simt_stmt_op_name(SimtStmtOp op) { return kSimtStmtOpNames[static_cast<size_t>(op)]; }

std::optional<SimtOp> simt_op_from_name(std::string_view name) {
  for (size_t i = 0; i < kSimtOpNames.size(); ++i) {
    if (kSimtOpNames[i] == name && i < static_cast<size_t>(SimtOp::shared_load)) return static_cast<SimtOp>(i);
  }
  return std::nullopt;
}

}  // namespace qd::ir
