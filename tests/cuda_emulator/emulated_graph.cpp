// tests/cuda_emulator/emulated_graph.cpp: the emulated driver's CUDA graphs, conditional WHILE nodes and linker.
//
// Strict where quadrants could go wrong: kernel nodes copy their parameters when added (as the driver does),
// an executable graph is a deep copy made at instantiation, nodes run in dependency order at cuGraphLaunch,
// a WHILE node runs its body while its handle is nonzero, and a handle's default value is applied only at
// cuGraphLaunch (so a nested loop that is not re-armed runs no more after its first round). The linker takes one
// image and libcudadevrt: relocatable code that calls cudaGraphSetConditional loads only once linked.
// Not emulated (refused with CUDA_ERROR_INVALID_VALUE): IF and SWITCH nodes, node types other than kernels and
// conditionals, edge data, graph nodes of kernels that take their QdArgs by value (their size is unknown here).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "emulated_driver.h"
#include "emulated_image.h"

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kFileNotFound = 301;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kLaunchFailed = 719;
constexpr int kNodeTypeConditional = 13;
constexpr int kConditionalWhile = 1;

// cuda.h's CUDA_KERNEL_NODE_PARAMS (v2) and CUgraphNodeParams with its conditional member.
struct KernelNodeParams {
  void* func;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  void** kernel_params;
  void** extra;
  void* kernel;
  void* context;
};
struct ConditionalNodeParams {
  unsigned long long handle;
  int type;
  unsigned size;
  void** bodies;
  void* context;
};
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(GraphNodeParams) == 256, "CUgraphNodeParams is 256 bytes");

// A conditional handle: an address in device memory, so that kernels may take it as an argument as real handles
// are taken; its value lives here. Shared by the graph that made it and every executable copy of that graph.
struct Handle {
  unsigned long long address = 0;
  unsigned default_value = 0;
  bool assign_default = false;
  unsigned value = 0;
  ~Handle() { emulated_release(address); }
};

struct Graph;

struct Node {
  Graph* owner = nullptr;
  std::vector<Node*> dependencies;
  bool conditional = false;
  void* function = nullptr;  // a kernel node
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
  unsigned long long params[4] = {};  // every quadrants kernel takes four 8-byte parameters
  std::shared_ptr<Handle> handle;     // a WHILE node
  std::unique_ptr<Graph> body;
  void* bodies[1] = {nullptr};        // what cuGraphAddNode hands back as phGraph_out
};

struct Graph {
  bool is_body = false;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<std::shared_ptr<Handle>> handles;  // made on this graph
};

struct Exec {
  std::unique_ptr<Graph> root;
  std::vector<std::shared_ptr<Handle>> handles;  // of every graph copied into it
};

struct LinkState {
  std::string image;
  bool relocatable = false;
  bool has_devrt = false;
  std::string output;
};

std::set<Graph*> graphs;  // every live graph, bodies included
std::set<Exec*> execs;
std::map<unsigned long long, std::weak_ptr<Handle>> handles;
std::set<LinkState*> links;

bool owns(const Graph* graph, const Node* node) {
  for (const auto& n : graph->nodes) {
    if (n.get() == node) return true;
  }
  return false;
}

void forget_graph(Graph* graph) {
  graphs.erase(graph);
  for (const auto& node : graph->nodes) {
    if (node->body) forget_graph(node->body.get());
  }
}

std::unique_ptr<Graph> copy_graph(const Graph& from, std::vector<std::shared_ptr<Handle>>& used) {
  auto to = std::make_unique<Graph>();
  to->is_body = from.is_body;
  std::map<const Node*, Node*> copies;
  for (const auto& handle : from.handles) used.push_back(handle);
  for (const auto& node : from.nodes) {
    auto copy = std::make_unique<Node>();
    copy->owner = to.get();
    for (Node* dependency : node->dependencies) copy->dependencies.push_back(copies.at(dependency));
    copy->conditional = node->conditional;
    copy->function = node->function;
    std::copy(node->grid, node->grid + 3, copy->grid);
    std::copy(node->block, node->block + 3, copy->block);
    copy->shared_bytes = node->shared_bytes;
    std::copy(node->params, node->params + 4, copy->params);
    copy->handle = node->handle;
    if (node->body) copy->body = copy_graph(*node->body, used);
    copies[node.get()] = copy.get();
    to->nodes.push_back(std::move(copy));
  }
  return to;
}

// Runs the nodes whose dependencies have run, in the order they were added, until all have.
CUresult run_graph(Graph& graph) {
  std::set<const Node*> done;
  while (done.size() < graph.nodes.size()) {
    bool progressed = false;
    for (const auto& node : graph.nodes) {
      if (done.count(node.get())) continue;
      bool ready = std::all_of(node->dependencies.begin(), node->dependencies.end(),
                               [&](const Node* d) { return done.count(d) != 0; });
      if (!ready) continue;
      if (emulated_ready() != kSuccess) return kSuccess;  // a fault: it surfaces at the next call
      if (node->conditional) {
        while (node->handle->value != 0 && emulated_ready() == kSuccess) {
          if (CUresult r = run_graph(*node->body)) return r;
        }
      } else {
        void* params[4] = {&node->params[0], &node->params[1], &node->params[2], &node->params[3]};
        if (CUresult r = emulated_launch(node->function, node->grid, node->block, node->shared_bytes, params, nullptr)) {
          return r;
        }
      }
      done.insert(node.get());
      progressed = true;
    }
    if (!progressed) return kInvalidValue;  // a cycle: cuGraphAddNode cannot make one, so never here
  }
  return kSuccess;
}

CUresult check_dependencies(Graph* graph, void* const* dependencies, size_t count) {
  if (count > 0 && !dependencies) return kInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    if (!owns(graph, static_cast<Node*>(dependencies[i]))) return kInvalidValue;
  }
  return kSuccess;
}

Node* add_node(Graph* graph, void* const* dependencies, size_t count) {
  auto node = std::make_unique<Node>();
  node->owner = graph;
  for (size_t i = 0; i < count; ++i) node->dependencies.push_back(static_cast<Node*>(dependencies[i]));
  graph->nodes.push_back(std::move(node));
  return graph->nodes.back().get();
}

}  // namespace

void emulated_set_conditional(unsigned long long address, unsigned value) {
  auto it = handles.find(address);
  std::shared_ptr<Handle> handle = it == handles.end() ? nullptr : it->second.lock();
  if (!handle) {
    std::fprintf(stderr, "emulated CUDA driver: cudaGraphSetConditional with an unknown handle %#llx\n", address);
    emulated_fail_launch(kLaunchFailed);
    return;
  }
  handle->value = value;
}

extern "C" {

CUresult cuGraphCreate(Graph** graph, unsigned flags) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!graph || flags != 0) return kInvalidValue;
  *graph = new Graph;
  graphs.insert(*graph);
  return kSuccess;
}

CUresult cuGraphDestroy(Graph* graph) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!graphs.count(graph)) return kInvalidHandle;
  if (graph->is_body) return kInvalidValue;  // a body graph belongs to its conditional node
  forget_graph(graph);
  delete graph;
  return kSuccess;
}

CUresult cuGraphAddKernelNode_v2(Node** out, Graph* graph, void* const* dependencies, size_t count,
                                 const KernelNodeParams* params) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!out || !params || !graphs.count(graph)) return kInvalidValue;
  if (CUresult r = check_dependencies(graph, dependencies, count)) return r;
  bool by_value = false;
  if (!emulated_is_function(params->func, &by_value)) return kInvalidHandle;
  if (by_value || !params->kernel_params || params->extra) return kInvalidValue;
  Node* node = add_node(graph, dependencies, count);
  node->function = params->func;
  std::copy(params->grid, params->grid + 3, node->grid);
  std::copy(params->block, params->block + 3, node->block);
  node->shared_bytes = params->shared_bytes;
  for (int i = 0; i < 4; ++i) std::memcpy(&node->params[i], params->kernel_params[i], 8);
  *out = node;
  return kSuccess;
}

CUresult cuGraphConditionalHandleCreate(unsigned long long* out, Graph* graph, void* context, unsigned default_value,
                                        unsigned flags) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!out || !graphs.count(graph) || flags > 1) return kInvalidValue;
  if (!context) return kInvalidContext;
  auto handle = std::make_shared<Handle>();
  if (CUresult r = emulated_allocate(&handle->address, 8)) return r;
  handle->default_value = default_value;
  handle->assign_default = flags == 1;
  handle->value = default_value;
  graph->handles.push_back(handle);
  handles[handle->address] = handle;
  *out = handle->address;
  return kSuccess;
}

CUresult cuGraphAddNode_v2(Node** out, Graph* graph, void* const* dependencies, const void* edge_data, size_t count,
                           GraphNodeParams* params) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!out || !params || !graphs.count(graph) || edge_data) return kInvalidValue;
  if (CUresult r = check_dependencies(graph, dependencies, count)) return r;
  if (params->type != kNodeTypeConditional || params->reserved0[0] || params->reserved0[1] || params->reserved0[2] ||
      params->reserved2) {
    return kInvalidValue;
  }
  ConditionalNodeParams& c = params->conditional;
  if (c.type != kConditionalWhile || c.size != 1) return kInvalidValue;
  if (!c.context) return kInvalidContext;
  std::shared_ptr<Handle> handle;
  for (const auto& made : graph->handles) {
    if (made->address == c.handle) handle = made;
  }
  if (!handle) return kInvalidValue;  // a handle belongs to the graph it was made on
  Node* node = add_node(graph, dependencies, count);
  node->conditional = true;
  node->handle = handle;
  node->body = std::make_unique<Graph>();
  node->body->is_body = true;
  graphs.insert(node->body.get());
  node->bodies[0] = node->body.get();
  c.bodies = node->bodies;
  *out = node;
  return kSuccess;
}

CUresult cuGraphInstantiateWithFlags(Exec** out, Graph* graph, unsigned long long flags) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!out || !graphs.count(graph) || graph->is_body || flags != 0) return kInvalidValue;
  auto* exec = new Exec;
  exec->root = copy_graph(*graph, exec->handles);
  execs.insert(exec);
  *out = exec;
  return kSuccess;
}

CUresult cuGraphLaunch(Exec* exec, void*) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!execs.count(exec)) return kInvalidHandle;
  for (const auto& handle : exec->handles) {
    if (handle->assign_default) handle->value = handle->default_value;
  }
  return run_graph(*exec->root);
}

CUresult cuGraphExecDestroy(Exec* exec) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!execs.erase(exec)) return kInvalidHandle;
  delete exec;
  return kSuccess;
}

CUresult cuLinkCreate_v2(unsigned num_options, void* options, void** values, LinkState** out) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (CUresult r = emulated_ready()) return r;
  if (!out || (num_options > 0 && (!options || !values))) return kInvalidValue;
  *out = new LinkState;
  links.insert(*out);
  return kSuccess;
}

// One emulated image (a CUBIN or "PTX": the emulated NVRTC makes the same bytes for both).
CUresult cuLinkAddData_v2(LinkState* state, int type, void* data, size_t bytes, const char*, unsigned, void*,
                          void**) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!links.count(state)) return kInvalidHandle;
  if ((type != 0 && type != 1) || !data || bytes < sizeof(EmulatedImageHeader) || !state->image.empty()) {
    return kInvalidValue;
  }
  EmulatedImageHeader header;
  std::memcpy(&header, data, sizeof header);
  bool loadable = std::memcmp(header.magic, kEmulatedImageMagic, sizeof header.magic) == 0;
  bool relocatable = std::memcmp(header.magic, kEmulatedRelocatableMagic, sizeof header.magic) == 0;
  if ((!loadable && !relocatable) || sizeof header + header.library_bytes > bytes) return kInvalidImage;
  state->image.assign(static_cast<const char*>(data), sizeof header + header.library_bytes);
  state->relocatable = relocatable;
  return kSuccess;
}

// Only libraries (libcudadevrt.a): an ar archive.
CUresult cuLinkAddFile_v2(LinkState* state, int type, const char* path, unsigned, void*, void**) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!links.count(state)) return kInvalidHandle;
  if (type != 4 || !path) return kInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kFileNotFound;
  char magic[8] = {};
  in.read(magic, sizeof magic);
  if (!in || std::memcmp(magic, "!<arch>\n", 8) != 0) return kInvalidImage;
  state->has_devrt = true;
  return kSuccess;
}

CUresult cuLinkComplete(LinkState* state, void** image, size_t* bytes) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!links.count(state)) return kInvalidHandle;
  if (!image || !bytes || state->image.empty()) return kInvalidValue;
  if (state->relocatable && !state->has_devrt) return kInvalidImage;  // cudaGraphSetConditional unresolved
  state->output = state->image;
  std::memcpy(state->output.data(), kEmulatedImageMagic, sizeof kEmulatedImageMagic);
  *image = state->output.data();
  *bytes = state->output.size();
  return kSuccess;
}

CUresult cuLinkDestroy(LinkState* state) {
  std::lock_guard<std::recursive_mutex> lock(emulated_driver_mutex());
  if (!links.erase(state)) return kInvalidHandle;
  delete state;
  return kSuccess;
}

}  // extern "C"
