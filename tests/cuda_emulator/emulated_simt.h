// tests/cuda_emulator/emulated_simt.h: the emulated driver's block runner for modules using block/warp intrinsics.
#pragma once

#include <string>

#include "emulated_image.h"

// The module-side view of one launch: where its index globals are, and the task to call per thread.
struct EmulatedSimtLaunch {
  EmulatedDim3* thread_idx;
  unsigned block[3];
  EmulatedTask task;
  void* args[4];
};

// The driver's implementation of the modules' `qd_emulated_simt` pointer.
unsigned long long emulated_simt_call(int op, unsigned mask, unsigned long long value, int lane, const char* name);

// Runs the block's threads as fibers (src/codegen/runtime/qd_simt.h). False, with *error set, when the
// threads misused an intrinsic (a mask without the caller's lane, lanes of one warp at different
// intrinsics, ...) or waited for each other at different scopes (a real GPU would hang there).
bool emulated_run_simt_block(const EmulatedSimtLaunch& launch, std::string* error);

// Forgets a block run that a fault ended midway (the driver's fault handler jumped out of a fiber).
void emulated_simt_reset();
