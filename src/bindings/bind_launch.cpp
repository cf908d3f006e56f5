// src/bindings/bind_launch.cpp: _core.Launcher, the per-call path of a kernel: convert, look up, pack, run.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <x86intrin.h>
#endif

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings/annotation_check.h"
#include "bindings/arg_adapters.h"
#include "bindings/cuda_launch.h"
#include "bindings/realigned_args.h"
#include "bindings/torch_profiler.h"
#include "jit/tiered_build.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "quadrants/jit.h"
#include "runtime/launch.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

// While tracing a torch op with fake tensors (torch.compile, torch.library.opcheck), kernels only
// need to exist, not run: the op's Python body allocates its outputs and the kernels are skipped.
thread_local int fake_mode_depth = 0;  // per thread: tracing in one thread must not skip another's kernels

// The task count of the kernel launched last, in any thread (upstream's get_num_offloaded_tasks_on_last_call).
std::atomic<int> last_launch_tasks{0};

// Kernels returning at most this many values keep them on the stack.
constexpr size_t kInlineReturns = 16;

// Releasing and retaking the GIL costs about 45 ns, as much as the rest of a small kernel's launch. A
// specialization whose last run took under kShortRunTicks (about 10-25 us) keeps the GIL for its next
// run, as Numba's default does; a longer run releases it again from the next call on. So another Python
// thread waits at most one such run when a kernel's work grows with its data.
#if defined(__x86_64__) || defined(_M_X64)
inline uint64_t ticks() { return __rdtsc(); }  // a few ns, where reading the clock may be a system call
constexpr uint64_t kShortRunTicks = 50'000;
#else
inline uint64_t ticks() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
constexpr uint64_t kShortRunTicks = 20'000;
#endif

class Launcher {
 public:
  // cpu_only: the kernel is host code whatever qd.init chose (hand-written C++ kernels).
  // result_fn: None, or called with the tuple of a kernel's returned values (see returned()).
  Launcher(std::string name, nb::list params, nb::object compile_fn, bool cpu_only, nb::object result_fn)
      : name_(std::move(name)), compile_fn_(std::move(compile_fn)), cpu_only_(cpu_only) {
    if (!result_fn.is_none()) result_fn_ = std::move(result_fn);
    for (nb::handle p : params) params_.push_back(parse_param(nb::cast<nb::tuple>(p)));
    for (const ParamSpec& p : params_) {
      for (int k = 0; k < p.count; ++k) arg_names_.push_back(p.name);
    }
    if (arg_names_.size() > kMaxKernelArgs) {
      throw ValueError("Kernel '" + name_ + "' has " + std::to_string(arg_names_.size()) +
                       " parameters (vector and matrix entries count one each); at most " +
                       std::to_string(kMaxKernelArgs) + " are supported.");
    }
  }
  Launcher(const Launcher&) = delete;  // owns compiled specializations
  Launcher& operator=(const Launcher&) = delete;

  // Called by compile_fn: the fields of the variant being compiled.
  void set_globals(const std::vector<std::shared_ptr<Array>>& globals) {
    if (arg_names_.size() + globals.size() > kMaxKernelArgs) {
      throw ValueError("Kernel '" + name_ + "' uses too many fields and arguments (at most " +
                       std::to_string(kMaxKernelArgs) + ").");
    }
    pending_globals_ = globals;
  }

  // Tiered compile: how many specializations still run a quick build (their optimized build not swapped in yet).
  int quick_builds() const { return table_.count_if([](const Specialization& s) { return s.upgrade != nullptr; }); }

  void clear() {
    std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate());  // variants own loaded code
    table_.clear();
    last_ = nullptr;
  }

  // The specialization these arguments select, without compiling or running anything.
  nb::tuple spec_of(nb::args args) {
    size_t n = params_.size();
    if (args.size() != n) throw_arity(args.size());
    QdArg packed[kMaxKernelArgs];
    uint64_t key[kMaxKernelArgs] = {};
    ArgSlots holders(n);
    for (size_t i = 0, q = 0; i < n; q += params_[i].count, ++i) {
      if (params_[i].is_array) key[i] = pack_array(i, q, args[i].ptr(), packed[q], holders[i], nullptr, nullptr);
    }
    return spec_tuple(key);
  }

  // kwargs: null or a dict (the tp_call protocol).
  nb::object call(const nb::tuple& args, PyObject* kwargs) {
    if (!kwargs || PyDict_GET_SIZE(kwargs) == 0) return launch(args, nullptr);
    nb::dict kw = nb::borrow<nb::dict>(kwargs);
    // qd_stream=<int> picks the CUDA stream explicitly (torch's cuda_stream, CuPy's ptr).
    uintptr_t stream = 0;
    bool has_stream = kw.contains("qd_stream");
    if (has_stream) {
      stream = nb::cast<uintptr_t>(kw["qd_stream"]);
      kw = nb::dict(kw);  // the caller's dict (e.g. f(**d)) is not ours to change
      PyDict_DelItemString(kw.ptr(), "qd_stream");
    }
    nb::tuple bound = kw.size() != 0 ? bind_keywords(args, kw) : args;
    return launch(bound, has_stream ? &stream : nullptr);
  }

 private:
  nb::object launch(const nb::tuple& args, const uintptr_t* explicit_stream) {
    if (fake_mode_depth > 0) return nb::none();
    size_t n = params_.size();
    if (args.size() != n) throw_arity(args.size());
    QdArg packed[kMaxKernelArgs];
    uint64_t key[kMaxKernelArgs];
    ArgSlots holders(n);
    HostStaging staging;  // stays empty (no allocation) unless host arrays meet a CUDA kernel
    RealignedArgs realigned;  // stays empty unless a host array's data is misaligned
    size_t total = 0;  // QdArgs packed so far
    for (size_t i = 0; i < n; ++i) {
      const ParamSpec& p = params_[i];
      if (p.is_array) {
        key[i] = pack_array(i, total, args[i].ptr(), packed[total], holders[i], &staging, &realigned);
      } else {
        key[i] = 0;
        if (p.is_vector) {
          pack_vector(p, args[i].ptr(), packed + total);
        } else {
          pack_scalar(p, args[i].ptr(), packed[total]);
        }
      }
      total += p.count;
    }
    const Specialization* spec = last_;
    if (!spec || !same_key(*spec, key, n)) {
      spec = table_.find(key, static_cast<int>(n));
      if (!spec) {
        bool packed_for_cuda = !cpu_only_ && current_target().cuda;
        spec = &compile(key, args);
        // A first call before qd.init() packed its arrays for the default target, and the compile initialized
        // the runtime, which may have picked CUDA (QD_ARCH): pack again, so host arrays are staged.
        if (static_cast<bool>(spec->cuda) != packed_for_cuda) return launch(args, explicit_stream);
      }
      last_ = spec;
    }
    if (spec->upgrade) jit::swap_in_optimized(*spec);  // tiered compile: the optimized build, between launches
    last_launch_tasks.store(spec->num_tasks, std::memory_order_relaxed);
    std::optional<TorchProfilerRange> profiled;  // the launch under the kernel's name in torch.profiler
    if (torch_profiler_active()) profiled.emplace(name_);
    for (const std::shared_ptr<Array>& g : spec->globals) pack_view(g->view(), packed[total++]);
    if (spec->cuda) return launch_on_cuda(*spec, packed, total, holders, staging, explicit_stream);
    size_t returned_count = spec->returns.size();
    QdArg inline_returns[kInlineReturns];
    std::unique_ptr<QdArg[]> heap_returns;
    QdArg* ret = inline_returns;
    if (returned_count > kInlineReturns) {
      heap_returns.reset(new QdArg[returned_count]);
      ret = heap_returns.get();
    }
    if (returned_count) std::memset(ret, 0, returned_count * sizeof(QdArg));
    uint64_t start = ticks();
    if (spec->short_run) {
      run_entry(*spec, packed, ret, name_, spec->arg_names);
    } else {
      // Other Python threads may run while a kernel computes; the arguments stay alive through args.
      nb::gil_scoped_release release;
      run_entry(*spec, packed, ret, name_, spec->arg_names);
    }
    spec->short_run = ticks() - start < kShortRunTicks;
    if (!realigned.empty()) realigned.copy_back();
    return returned(spec->returns, ret);
  }

  static nb::object scalar_object(DtypeCode type, const QdArg& value) {
    if (is_float(type)) return nb::float_(value.scalar.f);
    if (type == DtypeCode::u1) return nb::bool_(value.scalar.i != 0);
    if (type == DtypeCode::u64) return nb::int_(static_cast<uint64_t>(value.scalar.i));
    return nb::int_(value.scalar.i);
  }

  // What a call returns: None, a number, or (several values, or a result_fn) the tuple of the values
  // passed through result_fn, which builds vectors, matrices and tuples of them.
  nb::object returned(const std::vector<DtypeCode>& returns, const QdArg* values) const {
    if (returns.empty()) return nb::none();
    if (returns.size() == 1 && !result_fn_.is_valid()) return scalar_object(returns[0], values[0]);
    nb::list items;
    for (size_t k = 0; k < returns.size(); ++k) items.append(scalar_object(returns[k], values[k]));
    nb::tuple tuple(items);
    return result_fn_.is_valid() ? result_fn_(tuple) : nb::object(tuple);
  }

  nb::object launch_on_cuda(const Specialization& spec, const QdArg* packed, size_t total, const ArgSlots& holders,
                            HostStaging& staging, const uintptr_t* explicit_stream) {
    int device = current_target().device;
    CUstream stream = choose_stream(holders.data(), params_.size(), explicit_stream, device);
    std::vector<QdArg> values;
    // Taken with the GIL held, so no qd.reset() or kernel clear() (which hold the GIL while they
    // wait for the gate) can free the variant or its fields before the launch; released before
    // the GIL is taken back, so neither side can wait for the other.
    std::shared_lock<std::shared_mutex> gate(launch_gate());
    {
      nb::gil_scoped_release release;
      struct Unlock {
        std::shared_lock<std::shared_mutex>& gate;
        ~Unlock() { gate.unlock(); }
      } unlock{gate};
      values = launch_cuda(spec.cuda, packed, static_cast<int>(total), stream, device, spec.arg_names);
    }
    if (!staging.empty()) staging.copy_back(stream, spec.cuda->param_written);
    return values.empty() ? nb::none() : returned(spec.returns, values.data());
  }

  // Keyword arguments take this slower path: positions are resolved by parameter name.
  nb::tuple bind_keywords(const nb::tuple& args, const nb::dict& kwargs) const {
    if (args.size() > params_.size()) throw_arity(args.size() + kwargs.size());
    std::vector<nb::object> bound(params_.size());
    for (size_t i = 0; i < args.size(); ++i) bound[i] = nb::borrow(args[i]);
    for (auto [key, value] : kwargs) {
      std::string name = nb::cast<std::string>(key);
      size_t i = 0;
      while (i < params_.size() && params_[i].name != name) ++i;
      if (i == params_.size()) {
        throw ArgumentError("Unexpected argument '" + name + "': kernel '" + name_ + "' has no parameter of that "
                            "name (its parameters: " + param_names() + ").");
      }
      if (bound[i].is_valid()) {
        throw ArgumentError("Kernel '" + name_ + "' got multiple values for argument '" + name + "'.");
      }
      bound[i] = nb::borrow(value);
    }
    nb::list out;
    for (size_t i = 0; i < bound.size(); ++i) {
      if (!bound[i].is_valid()) {
        throw ArgumentError("Missing argument '" + params_[i].name + "' of kernel '" + name_ + "' (its parameters: " +
                            param_names() + ").");
      }
      out.append(bound[i]);
    }
    return nb::tuple(out);
  }

  static ParamSpec parse_param(nb::tuple t) {
    ParamSpec p;
    std::string kind = nb::cast<std::string>(t[0]);
    p.name = nb::cast<std::string>(t[1]);
    p.is_array = kind == "array";
    p.is_vector = kind == "vector";
    if (!p.is_array && !p.is_vector && kind != "scalar") {
      throw ValueError("Launcher: unknown parameter kind '" + kind + "'.");
    }
    if (!t[2].is_none()) {
      std::string dtype = nb::cast<std::string>(t[2]);
      p.dtype = dtype_from_name(dtype);
      if (!p.dtype) throw TypeError("Launcher: unknown dtype '" + dtype + "' for parameter '" + p.name + "'.");
    }
    if (p.is_array) {
      if (!t[3].is_none()) p.ndim = nb::cast<int>(t[3]);
      p.element_shape = nb::cast<std::vector<int64_t>>(t[4]);
      if (nb::len(t) > 5 && !t[5].is_none()) p.element_dim = nb::cast<int>(t[5]);
      if (p.element_dim < 0 || p.element_dim > 2) {
        throw ValueError("Launcher: array parameter '" + p.name + "' has element_dim " + std::to_string(p.element_dim) +
                         "; it must be 0, 1 or 2.");
      }
    }
    if (p.is_vector) {  // ("vector", name, dtype, shape): passed by value as its entries
      p.element_shape = nb::cast<std::vector<int64_t>>(t[3]);
      if (!p.dtype || p.element_shape.empty() || p.element_shape.size() > 2) {
        throw ValueError("Launcher: vector parameter '" + p.name + "' needs a dtype and a shape of 1 or 2 dims.");
      }
      p.count = 1;
      for (int64_t extent : p.element_shape) p.count *= static_cast<int>(extent);
    }
    return p;
  }

  // Upstream's first words ("Missing argument 'b'", "Too many arguments"), then what was expected and given.
  [[noreturn]] void throw_arity(size_t given) const {
    std::string what = given < params_.size() ? "Missing argument '" + params_[given].name + "'" : "Too many arguments";
    throw ArgumentError(what + ": kernel '" + name_ + "' takes " + std::to_string(params_.size()) + " argument(s) (" +
                        param_names() + "), but " + std::to_string(given) + " were given.");
  }

  std::string param_names() const {
    std::string names;
    for (const ParamSpec& p : params_) names += (names.empty() ? "" : ", ") + p.name;
    return names;
  }

  std::string where(size_t i) const { return argument_text(params_[i], name_); }

  static void pack_view(const ArrayView& view, QdArg& out) {
    out.data = view.data;
    for (int d = 0; d < view.ndim; ++d) {
      out.shape[d] = view.shape[d];
      out.strides[d] = view.strides[d];
    }
  }

  // Parameter i fills QdArg q. staging: where host arrays go when the kernel runs on a GPU; realigned: where
  // misaligned host arrays go on the CPU; both null in spec_of, which only describes the copies.
  uint64_t pack_array(size_t i, size_t q, PyObject* obj, QdArg& out, ArgSlot& holder, HostStaging* staging,
                      RealignedArgs* realigned) {
    ArrayView view;
    int element_ndim = 0;
    bool is_array = false;
    try {
      is_array = view_from_object(obj, view, element_ndim, holder);
    } catch (const TypeError& e) {  // an array quadrants cannot use: say which argument
      throw TypeError(where(i) + ": " + e.what());
    } catch (const ValueError& e) {
      throw ValueError(where(i) + ": " + e.what());
    }
    if (!is_array) {  // upstream's wording first, which programs and tests match
      throw ArgumentTypeError("Invalid type for argument " + params_[i].name + ", got " +
                              std::string(nb::repr(obj).c_str()) + ": " + where(i) + ": expected an array (qd.ndarray, "
                              "numpy array, torch tensor or DLPack producer), but got " + describe_object(obj) + ".");
    }
    check_annotation(params_[i], name_, obj, view, element_ndim);
    bool misaligned = is_misaligned(view);
    if (misaligned && view.device.kind != DeviceId::Kind::cpu) {
      throw ValueError(where(i) + ": the array's data is not aligned to its " + std::to_string(dtype_size(view.dtype)) +
                       "-byte elements; pass an aligned copy (e.g. x.clone()).");
    }
    place_on_target(i, q, view, element_ndim, staging);
    if (misaligned && view.device.kind == DeviceId::Kind::cpu) realign(i, view, element_ndim, realigned);
    pack_view(view, out);
    return array_signature(view, element_ndim);
  }

  // Arrays must live where the kernel runs; host arrays meeting a CUDA kernel are staged.
  void place_on_target(size_t i, size_t q, ArrayView& view, int element_ndim, HostStaging* staging) {
    static const Target host{false, 0};
    const Target& target = cpu_only_ ? host : current_target();
    bool on_cuda = view.device.kind == DeviceId::Kind::cuda;
    if (!target.cuda && on_cuda) {
      throw ValueError(where(i) + ": the array is on cuda:" + std::to_string(view.device.index) +
                       ", but the kernel runs on the CPU; move it with .cpu()" +
                       (cpu_only_ ? " (C++ kernels are host code)." : " or init with qd.cuda."));
    }
    if (target.cuda && on_cuda && view.device.index != target.device) {
      throw ValueError(where(i) + ": the array is on cuda:" + std::to_string(view.device.index) +
                       ", but the kernel runs on cuda:" + std::to_string(target.device) + ".");
    }
    if (target.cuda && !on_cuda) {
      if (!staging) {  // spec_of: describe the device copy that a call would make, without making it
        view.device = {DeviceId::Kind::cuda, target.device};
        fill_contiguous_strides(view);
        return;
      }
      warn_staging(i, view);
      view = staging->stage(view, element_ndim, target.device, q);
    }
  }

  // Whether parameter i's warning of this kind is still to be given (once per parameter); marks it given.
  bool first_warning(std::vector<bool>& warned, size_t i) const {
    if (warned.size() < params_.size()) warned.resize(params_.size(), false);
    if (warned[i]) return false;
    warned[i] = true;
    return true;
  }

  // A misaligned host array meeting a CPU kernel runs on an aligned copy, warned once per parameter. (Host
  // staging for a CUDA kernel copies it anyway.)
  void realign(size_t i, ArrayView& view, int element_ndim, RealignedArgs* realigned) {
    if (!realigned) {  // spec_of: describe the aligned copy that a call would make
      fill_contiguous_strides(view);
      return;
    }
    if (first_warning(realign_warned_, i)) {
      std::string message = where(i) + ": the array's data is not aligned to its " +
                            std::to_string(dtype_size(view.dtype)) + "-byte elements, so every call copies it to an "
                            "aligned buffer and back. Pass an aligned array (x.copy()) to avoid the copies.";
      if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw nb::python_error();
    }
    view = realigned->stage(view, element_ndim);
  }

  void warn_staging(size_t i, const ArrayView& view) {
    if (!first_warning(staging_warned_, i)) return;
    int64_t bytes = view.size() * dtype_size(view.dtype);
    std::string message = where(i) + " is in host memory but the kernel runs on cuda:" +
                          std::to_string(current_target().device) + "; it is copied to the device on every call, and back "
                          "when the kernel writes it (" + std::to_string(bytes) + " bytes each way). Pass a CUDA tensor, a CuPy "
                          "array or a qd.ndarray to avoid the copies.";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw nb::python_error();
  }

  void pack_scalar(const ParamSpec& p, PyObject* obj, QdArg& out) {
    bool is_bool = PyBool_Check(obj);
    if (p.dtype && is_float(*p.dtype)) {
      double v = PyFloat_AsDouble(obj);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw TypeError(where_scalar(p) + ": expected a number for " + std::string(dtype_name(*p.dtype)) +
                        ", but got " + describe_object(obj) + ".");
      }
      out.scalar.f = v;
      return;
    }
    if (!is_bool && PyFloat_Check(obj)) {  // upstream's wording first, which programs and tests match
      std::string type(dtype_name(*p.dtype));
      throw ArgumentTypeError("Argument (" + std::to_string(&p - params_.data()) + ",) (type=" +
                              std::string(nb::repr(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj)))).c_str()) +
                              ") cannot be converted into required type " + type + ": " + where_scalar(p) +
                              ": expected an integer for " + type + ", but got the float " +
                              std::string(nb::repr(obj).c_str()) + "; convert it with int().");
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow > 0 && *p.dtype == DtypeCode::u64) {  // above int64: the bits go through .i unchanged
      unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (!PyErr_Occurred()) {
        std::memcpy(&out.scalar.i, &u, sizeof u);
        return;
      }
      PyErr_Clear();
    }
    if (overflow) {
      PyErr_Clear();
      throw ValueError(where_scalar(p) + ": " + std::string(nb::str(obj).c_str()) + " does not fit in " +
                       std::string(dtype_name(*p.dtype)) + ".");
    }
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw TypeError(where_scalar(p) + ": expected an integer for " + std::string(dtype_name(*p.dtype)) +
                      ", but got " + describe_object(obj) + ".");
    }
    check_integer_range(p, v);
    out.scalar.i = v;
  }

  // A Python int that the parameter's type cannot hold would silently wrap: refuse it.
  void check_integer_range(const ParamSpec& p, long long v) const {
    int bits = dtype_size(*p.dtype) * 8;
    if (*p.dtype == DtypeCode::u1 || bits == 64) {
      if (*p.dtype == DtypeCode::u64 && v < 0) throw_range(p, v, "0", "2**64 - 1");
      return;
    }
    long long low = is_signed(*p.dtype) ? -(1LL << (bits - 1)) : 0;
    long long high = is_signed(*p.dtype) ? (1LL << (bits - 1)) - 1 : (1LL << bits) - 1;
    if (v < low || v > high) throw_range(p, v, std::to_string(low), std::to_string(high));
  }

  [[noreturn]] void throw_range(const ParamSpec& p, long long v, const std::string& low, const std::string& high) const {
    throw ValueError(where_scalar(p) + ": " + std::to_string(v) + " does not fit in " +
                     std::string(dtype_name(*p.dtype)) + " (" + low + " to " + high + ").");
  }

  std::string where_scalar(const ParamSpec& p) const { return argument_text(p, name_); }

  // A vector/matrix passed by value: its entries, row-major, into p.count scalar QdArgs. Takes
  // qd.Vector/qd.Matrix, numpy arrays and (nested) lists or tuples; a matrix also takes its entries flat.
  void pack_vector(const ParamSpec& p, PyObject* obj, QdArg* out) {
    if (pack_vector_buffer(p, obj, out)) return;
    const std::vector<int64_t>& shape = p.element_shape;
    nb::object items = sequence_of(p, obj);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
    PyObject** entries = PySequence_Fast_ITEMS(items.ptr());
    if (shape.size() == 2 && n == shape[0] && n > 0 && PySequence_Check(entries[0])) {  // rows
      for (Py_ssize_t r = 0; r < n; ++r) {
        nb::object row = sequence_of(p, entries[r]);
        if (PySequence_Fast_GET_SIZE(row.ptr()) != shape[1]) throw_vector_shape(p, obj);
        PyObject** row_entries = PySequence_Fast_ITEMS(row.ptr());
        for (int64_t c = 0; c < shape[1]; ++c) pack_scalar(p, row_entries[c], out[r * shape[1] + c]);
      }
      return;
    }
    if (n != p.count) throw_vector_shape(p, obj);
    for (Py_ssize_t k = 0; k < n; ++k) {
      if (PySequence_Check(entries[k])) throw_vector_shape(p, obj);
      pack_scalar(p, entries[k], out[k]);
    }
  }

  // numpy arrays, and qd.Vector/qd.Matrix through their numpy `_values`, are read through the buffer
  // protocol without a Python object per entry. False for anything else (and float16 or byte-swapped
  // data), which goes the sequence way.
  bool pack_vector_buffer(const ParamSpec& p, PyObject* obj, QdArg* out) {
    if (PyList_Check(obj) || PyTuple_Check(obj)) return false;
    nb::object source = nb::borrow(obj);
    if (!PyObject_CheckBuffer(obj)) {
      PyObject* values = PyObject_GetAttrString(obj, "_values");
      if (!values) {
        PyErr_Clear();
        return false;
      }
      source = nb::steal(values);
      if (!PyObject_CheckBuffer(source.ptr())) return false;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      return false;
    }
    struct Release {
      Py_buffer* view;
      ~Release() { PyBuffer_Release(view); }
    } release{&view};
    const char* format = view.format ? view.format : "B";
    if (*format == '<' || *format == '@' || *format == '=') ++format;
    char kind = format[0];
    bool is_float_data = kind == 'f' || kind == 'd';
    bool is_signed_data = kind == 'b' || kind == 'h' || kind == 'i' || kind == 'l' || kind == 'q';
    bool is_unsigned_data = kind == 'B' || kind == 'H' || kind == 'I' || kind == 'L' || kind == 'Q' || kind == '?';
    if (format[1] != '\0' || !(is_float_data || is_signed_data || is_unsigned_data)) return false;
    int64_t count = 1;
    for (int d = 0; d < view.ndim; ++d) count *= view.shape[d];
    bool rows = view.ndim == 2 && p.element_shape.size() == 2 && view.shape[0] == p.element_shape[0];
    if (count != p.count || !(view.ndim == 1 || rows)) throw_vector_shape(p, obj);
    if (is_float_data && !is_float(*p.dtype)) {
      throw TypeError(where_scalar(p) + ": expected integers for " + std::string(dtype_name(*p.dtype)) +
                      ", but got float data (" + describe_object(obj) + "); convert it with .astype(int).");
    }
    for (int64_t k = 0; k < count; ++k) {
      const char* at = static_cast<const char*>(view.buf);
      if (view.ndim == 1) {
        at += k * view.strides[0];
      } else {
        at += (k / view.shape[1]) * view.strides[0] + (k % view.shape[1]) * view.strides[1];
      }
      if (is_float_data) {
        out[k].scalar.f = view.itemsize == 4 ? load<float>(at) : load<double>(at);
        continue;
      }
      int64_t value = read_integer(at, view.itemsize, is_signed_data);
      bool above_int64 = !is_signed_data && view.itemsize == 8 && value < 0;
      if (is_float(*p.dtype)) {
        out[k].scalar.f = above_int64 ? static_cast<double>(static_cast<uint64_t>(value)) : static_cast<double>(value);
        continue;
      }
      if (above_int64 && *p.dtype != DtypeCode::u64) {
        throw ValueError(where_scalar(p) + ": " + std::to_string(static_cast<uint64_t>(value)) + " does not fit in " +
                         std::string(dtype_name(*p.dtype)) + ".");
      }
      if (!above_int64) check_integer_range(p, value);
      out[k].scalar.i = value;  // u64 keeps its bits
    }
    return true;
  }

  template <class T>
  static T load(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
  }

  static int64_t read_integer(const char* at, Py_ssize_t size, bool is_signed) {
    switch (size) {
      case 1: return is_signed ? load<int8_t>(at) : load<uint8_t>(at);
      case 2: return is_signed ? load<int16_t>(at) : load<uint16_t>(at);
      case 4: return is_signed ? load<int32_t>(at) : load<uint32_t>(at);
      default: return load<int64_t>(at);
    }
  }

  nb::object sequence_of(const ParamSpec& p, PyObject* obj) const {
    if (PySequence_Check(obj) || PyIter_Check(obj) || PyObject_HasAttrString(obj, "__iter__")) {
      PyObject* items = PySequence_Fast(obj, "");
      if (items) return nb::steal(items);
      PyErr_Clear();
    }
    throw_vector_shape(p, obj);
  }

  [[noreturn]] void throw_vector_shape(const ParamSpec& p, PyObject* obj) const {
    std::string shape = std::to_string(p.element_shape[0]);
    std::string what = p.element_shape.size() == 2 ? shape + "x" + std::to_string(p.element_shape[1]) + " matrix"
                                                   : shape + "-vector";
    throw TypeError(where_scalar(p) + ": expected a " + what + " of " + std::string(dtype_name(*p.dtype)) +
                    " (a qd.Vector/qd.Matrix, list, tuple or numpy array of that shape), but got " +
                    describe_object(obj) + ".");
  }

  // The frontend's description of a signature: ("scalar", dtype) or
  // ("array", dtype, ndim, element_shape, contiguous, writable) per parameter.
  nb::tuple spec_tuple(const uint64_t* key) const {
    nb::list spec;
    for (size_t i = 0; i < params_.size(); ++i) {
      const ParamSpec& p = params_[i];
      if (p.is_vector) {
        nb::list shape;
        for (int64_t extent : p.element_shape) shape.append(extent);
        spec.append(nb::make_tuple("vector", std::string(dtype_name(*p.dtype)), nb::tuple(shape)));
        continue;
      }
      if (!p.is_array) {
        spec.append(nb::make_tuple("scalar", std::string(dtype_name(*p.dtype))));
        continue;
      }
      uint64_t sig = key[i];
      auto dtype = static_cast<DtypeCode>(sig & 0xff);
      int outer = static_cast<int>((sig >> 8) & 0xf);
      int element_ndim = static_cast<int>((sig >> 16) & 0xf);
      nb::list element_shape;
      for (int e = 0; e < element_ndim; ++e) element_shape.append(static_cast<int64_t>((sig >> (20 + 16 * e)) & 0xffff));
      spec.append(nb::make_tuple("array", std::string(dtype_name(dtype)), outer, nb::tuple(element_shape),
                                 bool((sig >> 12) & 1), bool((sig >> 13) & 1)));
    }
    return nb::tuple(spec);
  }

  // The variant's fields (from compile_fn's set_globals) and its argument names: error messages name
  // fields by the parameter names the kernel IR gave them.
  void attach_globals(Specialization& entry, const std::vector<KernelParam>& params) {
    entry.globals = std::move(pending_globals_);
    pending_globals_.clear();
    entry.arg_names = arg_names_;
    for (size_t i = arg_names_.size(); i < params.size(); ++i) entry.arg_names.push_back(params[i].name);
  }

  // A miss: the frontend turns the argument signature into IR and returns a CompiledKernel. It also
  // sees the arguments, to warn once about pitfalls (float64 mixed with float32, autograd).
  const Specialization& compile(const uint64_t* key, const nb::tuple& args) {
    nb::tuple spec = spec_tuple(key);
    if (!compile_fn_.is_valid() || compile_fn_.is_none()) {
      throw std::runtime_error("Kernel '" + name_ + "' cannot compile: it was garbage-collected or has no compile_fn.");
    }
    nb::object compiled = compile_fn_(spec, args);
    Specialization entry;
    entry.key.assign(key, key + params_.size());
    std::shared_ptr<const CudaCompiledKernel> cuda;
    if (nb::try_cast(compiled, cuda)) {
      attach_globals(entry, cuda->params);
      entry.returns = cuda->returns;
      entry.assert_messages = &cuda->assert_messages;
      entry.cuda = cuda;
      entry.num_tasks = static_cast<int>(cuda->tasks.size());
      entry.keep = cuda;
      return table_.add(std::move(entry));
    }
    auto kernel = nb::cast<std::shared_ptr<const CompiledKernel>>(compiled);
    attach_globals(entry, kernel->params);
    entry.entry = kernel->entry;
    entry.upgrade = kernel->optimized;  // tiered compile: swapped in by launch() once loaded
    entry.num_tasks = kernel->num_tasks;
    entry.returns = kernel->returns;
    entry.assert_messages = &kernel->assert_messages;
    entry.keep = kernel;
    return table_.add(std::move(entry));
  }

  friend int launcher_traverse(PyObject* self, visitproc visit, void* arg);
  friend PyObject* launcher_call(PyObject* self, PyObject* args, PyObject* kwargs);
  friend int launcher_clear(PyObject* self);

  std::string name_;
  std::vector<ParamSpec> params_;
  std::vector<std::string> arg_names_;
  nb::object compile_fn_;
  nb::object result_fn_;  // invalid when the kernel returns at most a plain scalar
  bool cpu_only_ = false;
  SpecializationTable table_;
  const Specialization* last_ = nullptr;
  std::vector<std::shared_ptr<Array>> pending_globals_;  // set by compile_fn, taken by the new variant
  std::vector<bool> staging_warned_;  // per parameter: the host-staging warning was given
  std::vector<bool> realign_warned_;  // per parameter: the misaligned-copy warning was given
};

// compile_fn usually closes over the kernel object that owns this launcher: let the GC see the cycle.
int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<Launcher>(self)->compile_fn_.ptr());
  Py_VISIT(nb::inst_ptr<Launcher>(self)->result_fn_.ptr());
  return 0;
}

int launcher_clear(PyObject* self) {
  if (!nb::inst_ready(self)) return 0;
  nb::inst_ptr<Launcher>(self)->compile_fn_.reset();
  nb::inst_ptr<Launcher>(self)->result_fn_.reset();
  return 0;
}

// A C++ exception leaving launcher_call is rethrown inside a nanobind-bound function, so that it
// becomes the same Python exception (registered translators included) as anywhere else.
thread_local std::exception_ptr pending_exception;
PyObject* rethrow_pending = nullptr;  // _core._rethrow_pending

// The call slot itself, rather than a bound __call__: Python subclasses (FastKernel) inherit it, so a
// call reaches the launcher without a method lookup, a bound-method frame or a kwargs dict.
PyObject* launcher_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (!nb::inst_ready(self)) {
    PyErr_SetString(PyExc_RuntimeError, "Launcher called before its __init__ ran.");
    return nullptr;
  }
  try {
    return nb::inst_ptr<Launcher>(self)->call(nb::borrow<nb::tuple>(args), kwargs).release().ptr();
  } catch (...) {
    pending_exception = std::current_exception();
  }
  PyObject* none = PyObject_CallNoArgs(rethrow_pending);  // sets the Python error and returns null
  Py_XDECREF(none);
  return nullptr;
}

PyType_Slot launcher_slots[] = {
    {Py_tp_call, reinterpret_cast<void*>(launcher_call)},
    {Py_tp_traverse, reinterpret_cast<void*>(launcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(launcher_clear)},
    {0, nullptr}};

}  // namespace

void bind_launch(nb::module_& m) {
  m.def("set_target", [](const std::string& kind, int device) {
    if (kind != "cpu" && kind != "cuda") throw ValueError("set_target(): kind must be 'cpu' or 'cuda'.");
    current_target() = Target{kind == "cuda", device};
  }, nb::arg("kind"), nb::arg("device") = 0, "Where kernels run from now on (qd.init calls this).");
  m.def("enter_fake_mode", [] { ++fake_mode_depth; }, "Kernels return without running until the matching exit.");
  m.def("last_launch_tasks", [] { return last_launch_tasks.load(std::memory_order_relaxed); },
        "The task count (top-level parallel loops and serial runs) of the kernel launched last; 0 before any.");
  m.def("exit_fake_mode", [] { --fake_mode_depth; });
  m.def("_rethrow_pending", [] {
    std::exception_ptr e = std::exchange(pending_exception, nullptr);
    if (e) std::rethrow_exception(e);
  });
  rethrow_pending = m.attr("_rethrow_pending").inc_ref().ptr();
  nb::class_<Launcher>(m, "Launcher", nb::type_slots(launcher_slots))
      .def(nb::init<std::string, nb::list, nb::object, bool, nb::object>(), nb::arg("name"), nb::arg("params"),
           nb::arg("compile_fn").none(), nb::arg("cpu_only") = false, nb::arg("result_fn").none() = nb::none())
      .def("set_globals", &Launcher::set_globals)
      .def("spec_of", &Launcher::spec_of, "The specialization (see compile_fn) that these arguments select.")
      .def("clear", &Launcher::clear, "Drops every compiled specialization.")
      .def("_quick_builds", &Launcher::quick_builds,
           "Tiered compile: how many specializations still run their quick build.");
}

}  // namespace qd::bindings
