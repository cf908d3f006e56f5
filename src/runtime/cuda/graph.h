// src/runtime/cuda/graph.h: a graph=True kernel's tasks as one CUDA graph, built once per loaded module and replayed.
//
// The graph's kernel nodes point at a device buffer of its own (arguments, error record and flag, frame), so
// their parameters never change: each launch refills the buffer and replays the graph with cuGraphLaunch, whatever
// arrays and shapes the arguments hold (tasks are grid-stride loops, so no grid depends on them either). A
// qd.graph.do_while loop becomes a conditional WHILE node whose body holds the loop's tasks and then a condition
// kernel that reads the flag (graph_condition.h); where conditional nodes cannot be used the kernel is not made a
// graph at all and launches task by task, with the host loop (launch.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quadrants/cuda_jit.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/driver.h"

namespace qd::cuda {

// A task's function and the grid it launches with.
struct LoadedTask {
  CUfunction function = nullptr;
  unsigned grid = 1;
  unsigned block = 1;
};

// Where each part of a launch buffer lives, in bytes from its start (launch.cpp fills one per launch).
struct LaunchLayout {
  size_t error = 0;
  size_t flag = 0;
  size_t frame = 0;
  size_t total = 0;
};

class KernelGraph {
 public:
  // Builds and instantiates the graph of `kernel`'s tasks on the current context (device `dev`), with its own
  // launch buffer laid out as `layout`. Throws CudaError when a driver call fails; null (with *why set) when the
  // kernel has qd.graph.do_while loops and conditional nodes cannot be used here.
  static std::unique_ptr<KernelGraph> build(const CudaCompiledKernel& kernel, const std::vector<LoadedTask>& tasks,
                                            const Device& dev, const LaunchLayout& layout, std::string* why);
  ~KernelGraph();
  KernelGraph(const KernelGraph&) = delete;
  KernelGraph& operator=(const KernelGraph&) = delete;

  // The launch buffer the nodes read: the caller fills it on the launch's stream before launch().
  CUdeviceptr buffer() const { return buffer_; }
  const LaunchLayout& layout() const { return layout_; }
  // Enqueues one replay on `stream`.
  void launch(CUstream stream, const std::string& kernel_name) const;
  // Every node, those in conditional bodies included: kernel nodes (tasks, condition kernels) and conditional ones.
  int num_nodes() const { return num_nodes_; }

 private:
  KernelGraph() = default;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  CUdeviceptr buffer_ = 0;
  CUmodule condition_module_ = nullptr;  // qd.graph.do_while's condition kernel, linked for this graph
  int device_id_ = 0;
  LaunchLayout layout_;
  int num_nodes_ = 0;
};

// Whether this driver has the graph entry points (all of cuGraphCreate ... cuGraphExecDestroy).
bool graphs_available();

// Upstream's graph counters (impl.get_runtime().prog): what the last CUDA launch did, and the builds so far.
void note_graph_launch(int num_nodes);  // num_nodes 0: a launch without a graph
int graph_nodes_on_last_call();
bool graph_used_on_last_call();
int graph_total_builds();
void reset_graph_counters();

}  // namespace qd::cuda
