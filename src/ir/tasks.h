// src/ir/tasks.h: a kernel's tasks (upstream's offloaded tasks): how its top level splits into the units a
// target launches one after another.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace qd::ir {

// A top-level parallel_for (`loop` set, `body` holds just it), or a run of the top-level statements between two
// of them (`loop` null). A graph_do_while counts as one statement of a run here; the CUDA renderer further splits
// its body into tasks of their own (src/codegen/cuda_renderer.cpp, plan_tasks).
struct Task {
  const ParallelFor* loop = nullptr;
  Block body;
};

// Requires a kernel at any stage. The tasks in launch order; none for an empty body.
std::vector<Task> split_into_tasks(const Kernel& kernel);

// The kernel's tasks as text, for IR dumps: one header line per task, `// task K: serial` or `// task K:
// parallel_for` followed, for a loop named with qd.loop_config(name=...), by ` loop_name=NAME` (upstream's
// spelling), then the task's statements in the IR's text form.
std::string print_tasks(const Kernel& kernel);

}  // namespace qd::ir
