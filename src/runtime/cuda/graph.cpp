// src/runtime/cuda/graph.cpp: builds a graph=True kernel's CUDA graph (kernel nodes, WHILE nodes) and replays it.
#include "runtime/cuda/graph.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "quadrants/errors.h"
#include "runtime/cuda/graph_condition.h"

namespace qd::cuda {
namespace {

std::atomic<int> last_nodes{0};
std::atomic<bool> last_used{false};
std::atomic<int> total_builds{0};

// A qd.graph.do_while loop: tasks [first, last] repeat while argument `cond`'s flag is nonzero. `rank` orders
// loops over the same tasks: the task's loop_ends list them innermost first, so a larger rank is further out.
struct Loop {
  size_t first;
  size_t last;
  int cond;
  size_t rank;
};

std::vector<Loop> loops_of(const CudaCompiledKernel& kernel) {
  std::vector<Loop> loops;
  for (size_t t = 0; t < kernel.tasks.size(); ++t) {
    const std::vector<CudaLoopEnd>& ends = kernel.tasks[t].loop_ends;
    for (size_t k = 0; k < ends.size(); ++k) {
      loops.push_back({static_cast<size_t>(ends[k].first_task), t, ends[k].cond_param, k});
    }
  }
  return loops;
}

// Adds nodes to graphs, each after the one before it in the same graph (tasks share the frame, so they run in
// order). Kernel node parameters are copied by the driver when a node is added.
class Builder {
 public:
  Builder(const CudaCompiledKernel& kernel, const std::vector<LoadedTask>& tasks, const Device& dev)
      : api_(driver()), kernel_(kernel), tasks_(tasks), dev_(dev), loops_(loops_of(kernel)) {}

  CUdeviceptr buffer = 0;
  LaunchLayout layout;
  CUfunction condition = nullptr;
  CUdeviceptr one_slot = 0;       // holds the address of a device int 1: re-arms a nested loop
  CUdeviceptr returned_flag = 0;  // 0: the kernel has none
  CUdeviceptr error_flag = 0;     // 0: release mode
  int nodes = 0;

  // Tasks [begin, end) into `graph`, inside the loops `open` (outermost first); returns the last node added.
  CUgraphNode add_range(CUgraph graph, size_t begin, size_t end, std::vector<size_t>& open) {
    CUgraphNode last = nullptr;
    size_t task = begin;
    while (task < end) {
      const Loop* loop = outermost_starting_at(task, end, open);
      if (!loop) {
        last = add_task(graph, task, last);
        ++task;
        continue;
      }
      last = add_loop(graph, *loop, last, open);
      task = loop->last + 1;
    }
    return last;
  }

 private:
  const Loop* outermost_starting_at(size_t task, size_t end, const std::vector<size_t>& open) const {
    const Loop* best = nullptr;
    for (size_t k = 0; k < loops_.size(); ++k) {
      const Loop& loop = loops_[k];
      if (loop.first != task || loop.last >= end) continue;
      if (std::find(open.begin(), open.end(), k) != open.end()) continue;
      if (!best || loop.last > best->last || (loop.last == best->last && loop.rank > best->rank)) best = &loop;
    }
    return best;
  }

  CUgraphNode add_kernel(CUgraph graph, CUfunction function, unsigned grid, unsigned block, void** params,
                         CUgraphNode after, const std::string& what) {
    KernelNodeParams node{function, grid, 1, 1, block, 1, 1, 0, params, nullptr, nullptr, nullptr};
    CUgraphNode made = nullptr;
    check(api_.cuGraphAddKernelNode(&made, graph, after ? &after : nullptr, after ? 1 : 0, &node),
          "cuGraphAddKernelNode(" + what + ")");
    ++nodes;
    return made;
  }

  CUgraphNode add_task(CUgraph graph, size_t task, CUgraphNode after) {
    CUdeviceptr pointers[4] = {buffer, buffer + layout.frame, buffer + layout.error, buffer + layout.flag};
    void* params[4] = {&pointers[0], &pointers[1], &pointers[2], &pointers[3]};
    return add_kernel(graph, tasks_[task].function, tasks_[task].grid, tasks_[task].block, params, after,
                      "kernel '" + kernel_.name + "', task '" + kernel_.tasks[task].function + "'");
  }

  CUgraphNode add_condition(CUgraph graph, CUgraphConditionalHandle handle, CUdeviceptr flag_slot,
                            CUdeviceptr returned, CUdeviceptr error, CUgraphNode after) {
    void* params[4] = {&handle, &flag_slot, &returned, &error};
    return add_kernel(graph, condition, 1, 1, params, after, "qd.graph.do_while condition of '" + kernel_.name + "'");
  }

  // A WHILE node whose handle starts at 1 (do-while: the body runs once before the flag is read); a nested one is
  // set to 1 again by a kernel before its node, since its body graph runs once per iteration of the outer loop.
  CUgraphNode add_loop(CUgraph graph, const Loop& loop, CUgraphNode after, std::vector<size_t>& open) {
    CUgraphConditionalHandle handle = 0;
    check(api_.cuGraphConditionalHandleCreate(&handle, graph, dev_.context, 1, kGraphConditionalAssignDefault),
          "cuGraphConditionalHandleCreate(qd.graph.do_while of '" + kernel_.name + "')");
    if (!open.empty()) after = add_condition(graph, handle, one_slot, 0, 0, after);
    GraphNodeParams params;
    std::memset(&params, 0, sizeof params);
    params.type = kGraphNodeTypeConditional;
    params.conditional = {handle, kGraphConditionalWhile, 1, nullptr, dev_.context};
    CUgraphNode node = nullptr;
    size_t count = after ? 1 : 0;
    const CUgraphNode* dependencies = after ? &after : nullptr;
    CUresult result = api_.cuGraphAddNode
                          ? api_.cuGraphAddNode(&node, graph, dependencies, nullptr, count, &params)
                          : api_.cuGraphAddNodeWithoutEdges(&node, graph, dependencies, count, &params);
    check(result, "cuGraphAddNode(conditional WHILE node of '" + kernel_.name + "')");
    ++nodes;
    QD_ASSERT(params.conditional.bodies && params.conditional.bodies[0], "add_loop(): the driver gave no body graph");
    CUgraph body = params.conditional.bodies[0];
    open.push_back(static_cast<size_t>(&loop - loops_.data()));
    CUgraphNode last = add_range(body, loop.first, loop.last + 1, open);
    open.pop_back();
    CUdeviceptr flag_slot = buffer + static_cast<size_t>(loop.cond) * sizeof(QdArg) + offsetof(QdArg, data);
    add_condition(body, handle, flag_slot, returned_flag, error_flag, last);
    return node;
  }

  const DriverApi& api_;
  const CudaCompiledKernel& kernel_;
  const std::vector<LoadedTask>& tasks_;
  const Device& dev_;
  std::vector<Loop> loops_;
};

}  // namespace

bool graphs_available() {
  const DriverApi& api = driver();
  return api.cuGraphCreate && api.cuGraphAddKernelNode && api.cuGraphInstantiateWithFlags && api.cuGraphLaunch;
}

std::unique_ptr<KernelGraph> KernelGraph::build(const CudaCompiledKernel& kernel, const std::vector<LoadedTask>& tasks,
                                                const Device& dev, const LaunchLayout& layout, std::string* why) {
  const DriverApi& api = driver();
  CUfunction condition_function = nullptr;
  bool has_loops = false;
  for (const CudaTask& task : kernel.tasks) has_loops = has_loops || !task.loop_ends.empty();
  std::unique_ptr<KernelGraph> graph(new KernelGraph);
  graph->device_id_ = dev.info.index;
  graph->layout_ = layout;
  if (has_loops) {
    ConditionModule condition = load_graph_condition(kernel.condition);
    if (!condition.function) {
      *why = condition.unavailable;
      return nullptr;
    }
    graph->condition_module_ = condition.module;
    condition_function = condition.function;
  }
  // The launch buffer, then a device int 1 and a slot holding its address (a nested loop's re-arm flag).
  const size_t constants = (layout.total + 15) / 16 * 16;
  check(api.cuMemAlloc(&graph->buffer_, constants + 16), "cuMemAlloc(graph launch buffer of '" + kernel.name + "')");
  const CUdeviceptr one = graph->buffer_ + constants;
  const uint64_t words[2] = {1, one};  // little-endian: the int 1 in the first four bytes
  check(api.cuMemcpyHtoDAsync(one, words, sizeof words, nullptr), "cuMemcpyHtoDAsync(graph constants)");
  check(api.cuGraphCreate(&graph->graph_, 0), "cuGraphCreate(kernel '" + kernel.name + "')");

  Builder builder(kernel, tasks, dev);
  builder.buffer = graph->buffer_;
  builder.layout = layout;
  builder.one_slot = one + 8;
  builder.condition = condition_function;
  const int64_t returned_flag = 8 * std::max<int64_t>(1, static_cast<int64_t>(kernel.returns.size()));
  if (kernel.frame_bytes >= returned_flag + 4) builder.returned_flag = graph->buffer_ + layout.frame + returned_flag;
  if (kernel.debug) builder.error_flag = graph->buffer_ + layout.flag;
  try {
    std::vector<size_t> open;
    builder.add_range(graph->graph_, 0, tasks.size(), open);
    check(api.cuGraphInstantiateWithFlags(&graph->exec_, graph->graph_, 0),
          "cuGraphInstantiateWithFlags(kernel '" + kernel.name + "')");
  } catch (const CudaError& e) {
    // A device or driver that refuses conditional nodes: the kernel launches task by task with the host loop.
    if (!has_loops || e.code == 0 || is_sticky_error(e.code)) throw;
    *why = e.what();
    return nullptr;
  }
  graph->num_nodes_ = builder.nodes;
  total_builds.fetch_add(1, std::memory_order_relaxed);
  return graph;
}

KernelGraph::~KernelGraph() {
  // The caller has synchronized the context: nothing of this graph runs any more. Errors are the context's own.
  const DriverApi& api = driver();
  make_current(device_id_);
  if (exec_) api.cuGraphExecDestroy(exec_);
  if (graph_) api.cuGraphDestroy(graph_);
  if (buffer_) api.cuMemFree(buffer_);
  if (condition_module_) api.cuModuleUnload(condition_module_);
}

void KernelGraph::launch(CUstream stream, const std::string& kernel_name) const {
  CUresult result = driver().cuGraphLaunch(exec_, stream);
  if (result != kSuccess) check(result, "cuGraphLaunch(kernel '" + kernel_name + "')");
}

void note_graph_launch(int num_nodes) {
  last_nodes.store(num_nodes, std::memory_order_relaxed);
  last_used.store(num_nodes > 0, std::memory_order_relaxed);
}

int graph_nodes_on_last_call() { return last_nodes.load(std::memory_order_relaxed); }
bool graph_used_on_last_call() { return last_used.load(std::memory_order_relaxed); }
int graph_total_builds() { return total_builds.load(std::memory_order_relaxed); }

void reset_graph_counters() {
  last_nodes.store(0, std::memory_order_relaxed);
  last_used.store(false, std::memory_order_relaxed);
  total_builds.store(0, std::memory_order_relaxed);
}

}  // namespace qd::cuda
