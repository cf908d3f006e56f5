// tests/cuda_emulator/emulated_simt.cpp: block and warp intrinsics of the emulated driver, on the CPU's fibers.
//
// A module that uses __syncthreads, __shfl_*_sync, __ballot_sync, ... has its blocks run as fibers
// by qd_simt.h's scheduler, which the CPU backend uses too: each thread runs until it reaches an
// intrinsic, then the next one runs. On top of it this file is strict where CUDA leaves behaviour
// undefined, so generated code that would only work by luck on a GPU fails here:
// - a warp intrinsic's mask must contain the calling lane and name only threads of the block;
// - the threads that meet at one exchange must all be at the same intrinsic with the same mask;
// - a shuffle that reads a lane which did not take part (it exited, does not exist or is not in the
//   mask) gets a poison value (a NaN as f32 and f64) instead of some plausible number;
// - threads waiting at different scopes (a warp intrinsic while the rest of the warp waits at
//   __syncthreads) are reported: a GPU would hang or give undefined results.
// The driver serializes launches, so one run's state lives in a global.
#include "emulated_simt.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "qd_simt.h"

namespace {

struct Post {
  const char* name;
  unsigned mask;
  int64_t seq;
};

struct Run {
  const EmulatedSimtLaunch* launch = nullptr;
  std::string error;  // the first misuse seen in this block
  // What each thread posted at its last two warp and block exchanges (the fibers' own two slots).
  Post warp_posts[QD_SIMT_MAX_THREADS][2];
  Post block_posts[QD_SIMT_MAX_THREADS][2];
};
Run run;

constexpr unsigned long long kPoison = 0x7ff4badb7fbadbadULL;  // NaN as f64, and its low word as f32

void set_thread(int tid) {
  const unsigned* b = run.launch->block;
  unsigned t = static_cast<unsigned>(tid);
  *run.launch->thread_idx = {t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])};
}

void thread_body(void*, int tid) {
  set_thread(tid);
  const EmulatedSimtLaunch& l = *run.launch;
  l.task(l.args[0], l.args[1], l.args[2], l.args[3]);
}

// Ends the calling thread for good after a misuse: it counts as finished, so the block can end.
[[noreturn]] void abandon() {
  qd_simt::Block& b = *qd_simt::current_block();
  qd_simt::Fiber& f = b.fibers[b.current];
  f.state = qd_simt::kDone;
  qd_simt::qd_simt_switch(&f.sp, b.scheduler_sp);
  __builtin_unreachable();
}

[[noreturn]] __attribute__((format(printf, 1, 2))) void misuse(const char* format, ...) {
  if (run.error.empty()) {
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    run.error = text;
  }
  abandon();
}

// The mask checks CUDA states for the *_sync intrinsics: the caller's lane is in it, and (stricter
// than CUDA, which leaves it undefined) it names no lane past the end of the block.
void check_mask(const char* name, unsigned mask, int tid, int first, int end) {
  int own = tid - first;
  unsigned existing = end - first >= 32 ? ~0u : (1u << (end - first)) - 1u;
  if (!((mask >> own) & 1u)) {
    misuse("%s by thread %d with mask 0x%08x, which lacks the caller's lane %d", name, tid, mask, own);
  }
  if (mask & ~existing) {
    misuse("%s by thread %d with mask 0x%08x, which names lanes past the end of the block (%d threads)", name, tid,
           mask, end);
  }
}

// After the exchange: every thread that took part posted the same intrinsic and mask.
void check_same_intrinsic(const qd_simt::Block& b, bool block_scope, int first, int end, int tid, int64_t seq) {
  int slot = static_cast<int>(seq & 1);
  const Post& mine = (block_scope ? run.block_posts : run.warp_posts)[tid][slot];
  for (int t = first; t < end; ++t) {
    const qd_simt::Fiber& g = b.fibers[t];
    if ((block_scope ? g.block_seq[slot] : g.warp_seq[slot]) != seq) continue;  // finished before it
    const Post& other = (block_scope ? run.block_posts : run.warp_posts)[t][slot];
    if (std::strcmp(other.name, mine.name) != 0 || other.mask != mine.mask) {
      misuse("threads %d and %d of the block met at different intrinsics: %s (mask 0x%08x) and %s (mask 0x%08x)", t,
             tid, other.name, other.mask, mine.name, mine.mask);
    }
  }
}

}  // namespace

unsigned long long emulated_simt_call(int op, unsigned mask, unsigned long long value, int lane, const char* name) {
  qd_simt::Block* current = qd_simt::current_block();
  if (!current || !run.launch) {
    std::fprintf(stderr, "emulated CUDA driver: %s called outside a block run (an emulation bug)\n", name);
    std::abort();
  }
  if (!run.error.empty()) abandon();
  qd_simt::Block& b = *current;
  int tid = b.current;
  bool block_scope = op == QD_SIMT_SYNC_BLOCK || op >= QD_SIMT_SYNC_AND;
  int first = block_scope ? 0 : tid & ~(QD_SIMT_WARP - 1);
  int end = block_scope ? b.n : (first + QD_SIMT_WARP < b.n ? first + QD_SIMT_WARP : b.n);
  if (!block_scope) check_mask(name, mask, tid, first, end);
  if (op == QD_SIMT_SHUFFLE && lane < 0) {
    misuse("%s by thread %d with a width that is not a power of two up to 32", name, tid);
  }
  const qd_simt::Fiber& f = b.fibers[tid];
  int64_t seq = block_scope ? f.block_count : f.warp_count;
  (block_scope ? run.block_posts : run.warp_posts)[tid][seq & 1] = {name, mask, seq};
  unsigned long long result = qd_simt_op(op, value, op == QD_SIMT_SHUFFLE ? lane : 0);
  set_thread(tid);
  if (!run.error.empty()) abandon();
  check_same_intrinsic(b, block_scope, first, end, tid, seq);
  if (op == QD_SIMT_SHUFFLE) {
    int src = first + lane;
    bool took_part =
        lane < QD_SIMT_WARP && src < end && b.fibers[src].warp_seq[seq & 1] == seq && ((mask >> lane) & 1u);
    if (!took_part) return kPoison;  // undefined on a GPU
  }
  return result;
}

bool emulated_run_simt_block(const EmulatedSimtLaunch& launch, std::string* error) {
  run.launch = &launch;
  run.error.clear();
  int n = static_cast<int>(launch.block[0] * launch.block[1] * launch.block[2]);
  bool finished = qd_simt_run_block(n, &thread_body, nullptr);
  run.launch = nullptr;
  if (!run.error.empty()) {
    *error = run.error;
    return false;
  }
  if (!finished) {
    *error = "its threads waited for each other at different scopes (a warp intrinsic while the rest of the warp "
             "waits at __syncthreads, or the reverse): a GPU would hang or give undefined results";
    return false;
  }
  return true;
}

void emulated_simt_reset() {
  run.launch = nullptr;
  qd_simt::current_block() = nullptr;
}
