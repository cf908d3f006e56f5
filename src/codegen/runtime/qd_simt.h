// src/codegen/runtime/qd_simt.h: qd.simt blocks on the CPU: a block's threads run as fibers, so barriers and subgroup exchanges work anywhere.
//
// Host only. Generated CPU kernels that use block or subgroup operations include it, and the CUDA
// driver emulation (tests/cuda_emulator/) runs its blocks with the same scheduler. A block's threads
// are cooperative fibers on one OS thread: each runs until it reaches a barrier or an exchange (a
// shuffle, vote, ballot or barrier with a reduction), then the next one runs. A subgroup (32
// consecutive threads) is released once all its unfinished threads wait at a subgroup op; the block
// once all its unfinished threads wait at a block op. Threads that finished do not count, as with
// exited threads on a GPU. Barriers are counted, not matched by call site: like the hardware, two
// different block.sync() calls release each other. When no thread can go on (a thread waits at a
// subgroup op while the rest of its subgroup waits at a block barrier) the block stops with
// QD_SIMT_DEADLOCK, reported by the launcher as an error, never a hang.
#pragma once

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define QD_SIMT_WARP 32
#define QD_SIMT_MAX_THREADS 1024
#define QD_SIMT_STACK_BYTES (256 * 1024)

// Operation codes of qd_simt_op (also the CUDA emulation's callback).
enum QdSimtOpCode {
  QD_SIMT_SYNC_BLOCK, QD_SIMT_SYNC_WARP, QD_SIMT_SHUFFLE, QD_SIMT_BALLOT, QD_SIMT_ALL, QD_SIMT_ANY,
  QD_SIMT_SYNC_AND, QD_SIMT_SYNC_OR, QD_SIMT_SYNC_COUNT
};

namespace qd_simt {

enum State { kReady, kWaitBlock, kWaitWarp, kDone };

struct Fiber {
  void* sp;
  char* stack;
  int state;
  // Posted values of the last two subgroup and block exchanges: a fast thread posting the next
  // exchange cannot overwrite a value a slow one still has to read.
  uint64_t warp_value[2], block_value[2];
  int64_t warp_seq[2], block_seq[2];
  int64_t warp_count, block_count;
};

struct Block {
  Fiber fibers[QD_SIMT_MAX_THREADS];
  int capacity = 0;  // fibers with a stack
  int n = 0;
  int current = -1;
  void* scheduler_sp = nullptr;
  void (*body)(void*, int) = nullptr;
  void* closure = nullptr;
  bool deadlock = false;
};

inline Block*& current_block() {
  static thread_local Block* block = nullptr;
  return block;
}

#if defined(__x86_64__)
// Saves the callee-saved registers, MXCSR and the x87 control word on the current stack, stores
// the stack pointer in *from, and resumes the context saved at `to`.
__attribute__((naked, noinline, used)) static void qd_simt_switch(void** /*from*/, void* /*to*/) {
  __asm__ volatile(
      "pushq %rbp\n pushq %rbx\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
      "subq $8, %rsp\n stmxcsr (%rsp)\n fnstcw 4(%rsp)\n"
      "movq %rsp, (%rdi)\n movq %rsi, %rsp\n"
      "ldmxcsr (%rsp)\n fldcw 4(%rsp)\n addq $8, %rsp\n"
      "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbx\n popq %rbp\n ret\n");
}
#else
#error "qd.simt on the CPU needs a fiber switch for this architecture (x86-64 only so far)"
#endif

[[noreturn]] inline void fiber_main() {
  Block* b = current_block();
  b->body(b->closure, b->current);
  Fiber& f = b->fibers[b->current];
  f.state = kDone;
  qd_simt_switch(&f.sp, b->scheduler_sp);
  __builtin_unreachable();
}

// A fresh context on the fiber's stack whose first switch "returns" into fiber_main.
inline void start_fiber(Fiber& f) {
  uint64_t* top = reinterpret_cast<uint64_t*>(f.stack + QD_SIMT_STACK_BYTES);
  *--top = 0;  // fiber_main's return address slot: keeps the stack 16-byte aligned at its entry
  *--top = reinterpret_cast<uint64_t>(&fiber_main);
  for (int r = 0; r < 6; ++r) *--top = 0;
  uint32_t csr[2];
  __asm__ volatile("stmxcsr %0\n fnstcw %1" : "=m"(csr[0]), "=m"(csr[1]));
  --top;
  memcpy(top, csr, 8);
  f.sp = top;
}

inline bool ensure_stacks(Block& b, int n) {
  for (; b.capacity < n; ++b.capacity) {
    void* p = mmap(nullptr, QD_SIMT_STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
    b.fibers[b.capacity].stack = static_cast<char*>(p);
  }
  return true;
}

// Releases the subgroups whose unfinished threads all wait at a subgroup op, else the block when all
// its unfinished threads wait at a block op; false when nothing could be released.
inline bool release(Block& b, bool* all_done) {
  bool released = false;
  int live = 0, at_block = 0;
  for (int w = 0; w < b.n; w += QD_SIMT_WARP) {
    int end = w + QD_SIMT_WARP < b.n ? w + QD_SIMT_WARP : b.n, warp_live = 0, at_warp = 0;
    for (int t = w; t < end; ++t) {
      int s = b.fibers[t].state;
      warp_live += s != kDone;
      at_warp += s == kWaitWarp;
      at_block += s == kWaitBlock;
    }
    live += warp_live;
    if (warp_live == 0 || at_warp != warp_live) continue;
    for (int t = w; t < end; ++t) {
      if (b.fibers[t].state == kWaitWarp) b.fibers[t].state = kReady;  // finished ones stay finished
    }
    released = true;
  }
  *all_done = live == 0;
  if (released || live == 0 || at_block != live) return released;
  for (int t = 0; t < b.n; ++t) {
    if (b.fibers[t].state == kWaitBlock) b.fibers[t].state = kReady;
  }
  return true;
}

}  // namespace qd_simt

// Runs body(closure, tid) for tid in [0, n) as the threads of one block; false on a deadlock.
inline bool qd_simt_run_block(int n, void (*body)(void*, int), void* closure) {
  static thread_local qd_simt::Block* storage = nullptr;
  if (!storage) {  // mmap, not new: generated kernels link no C++ runtime library (jit/compiler.cpp)
    void* memory = mmap(nullptr, sizeof(qd_simt::Block), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    storage = static_cast<qd_simt::Block*>(memory);  // zeroed pages: the fields below start at 0 and null
    storage->current = -1;
  }
  qd_simt::Block& b = *storage;
  if (n > QD_SIMT_MAX_THREADS || !qd_simt::ensure_stacks(b, n)) return false;
  qd_simt::Block* outer = qd_simt::current_block();
  qd_simt::current_block() = &b;
  b.n = n, b.body = body, b.closure = closure, b.deadlock = false;
  for (int t = 0; t < n; ++t) {
    qd_simt::Fiber& f = b.fibers[t];
    f.state = qd_simt::kReady;
    f.warp_seq[0] = f.warp_seq[1] = f.block_seq[0] = f.block_seq[1] = -1;
    f.warp_count = f.block_count = 0;
    qd_simt::start_fiber(f);
  }
  for (bool done = false; !done;) {
    for (int t = 0; t < n; ++t) {
      if (b.fibers[t].state != qd_simt::kReady) continue;
      b.current = t;
      qd_simt::qd_simt_switch(&b.scheduler_sp, b.fibers[t].sp);
    }
    if (!qd_simt::release(b, &done) && !done) {
      b.deadlock = true;
      break;
    }
  }
  qd_simt::current_block() = outer;
  return !b.deadlock;
}

// The calling fiber's thread index within its block.
inline int qd_simt_tid() { return qd_simt::current_block()->current; }

// One exchange of the calling thread: posts `value`, waits for its subgroup or block, and combines
// what the others posted. SHUFFLE reads lane `arg` of the subgroup (its own value when that lane is
// out of [0, 32), missing or finished).
inline uint64_t qd_simt_op(int op, uint64_t value, int arg) {
  using namespace qd_simt;
  Block& b = *current_block();
  int tid = b.current;
  Fiber& f = b.fibers[tid];
  bool block_scope = op == QD_SIMT_SYNC_BLOCK || op >= QD_SIMT_SYNC_AND;
  int64_t seq = block_scope ? f.block_count++ : f.warp_count++;
  int slot = static_cast<int>(seq & 1);
  (block_scope ? f.block_value : f.warp_value)[slot] = value;
  (block_scope ? f.block_seq : f.warp_seq)[slot] = seq;
  f.state = block_scope ? kWaitBlock : kWaitWarp;
  qd_simt_switch(&f.sp, b.scheduler_sp);
  int first = block_scope ? 0 : tid & ~(QD_SIMT_WARP - 1);
  int end = block_scope ? b.n : (first + QD_SIMT_WARP < b.n ? first + QD_SIMT_WARP : b.n);
  if (op == QD_SIMT_SHUFFLE) {
    if (arg < 0 || arg >= QD_SIMT_WARP) return value;  // checked first: first + arg must not overflow
    int src = first + arg;
    if (src >= end || b.fibers[src].warp_seq[slot] != seq) return value;
    return b.fibers[src].warp_value[slot];
  }
  if (op == QD_SIMT_SYNC_BLOCK || op == QD_SIMT_SYNC_WARP) return 0;
  uint64_t count = 0, mask = 0, participants = 0;
  for (int t = first; t < end; ++t) {
    const Fiber& g = b.fibers[t];
    if ((block_scope ? g.block_seq[slot] : g.warp_seq[slot]) != seq) continue;
    ++participants;
    bool set = (block_scope ? g.block_value[slot] : g.warp_value[slot]) != 0;
    count += set;
    if (set) mask |= uint64_t(1) << (t - first);
  }
  switch (op) {
    case QD_SIMT_BALLOT: return mask;
    case QD_SIMT_ALL:
    case QD_SIMT_SYNC_AND: return count == participants;
    case QD_SIMT_ANY:
    case QD_SIMT_SYNC_OR: return count != 0;
    default: return count;
  }
}

// A value's bits through qd_simt_op and back.
template <class T>
inline T qd_simt_shuffle(T value, int32_t lane) {
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));
  bits = qd_simt_op(QD_SIMT_SHUFFLE, bits, lane);
  T out;
  memcpy(&out, &bits, sizeof(T));
  return out;
}

template <class F>
inline void qd_simt_thunk(void* closure, int tid) {
  (*static_cast<F*>(closure))(tid);
}

#ifdef QD_RUNTIME_H  // generated CPU kernels; the CUDA emulation reports a deadlock its own way
// Code 4: a block's threads could not all go on (see the top of this file).
inline void qd_report_simt_deadlock(const QdLaunchContext* ctx) {
  if (!qd_claim_error(ctx)) return;
  ctx->error->code = 4;
  ctx->error->arg_index = 0;
  ctx->error->ndim = 0;
  ctx->error->dim = 0;
}
#endif
