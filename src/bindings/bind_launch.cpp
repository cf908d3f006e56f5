// src/bindings/bind_launch.cpp: _core.Launcher, the per-call path of a kernel: convert, look up, pack, run.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings/arg_adapters.h"
#include "bindings/cuda_launch.h"
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

struct ParamSpec {
  bool is_array = false;
  std::string name;
  std::optional<DtypeCode> dtype;
  int ndim = -1;                       // -1: any, specialized per call
  std::vector<int64_t> element_shape;  // from a vector/matrix annotation
};

std::string shape_text(const int64_t* shape, int ndim) {
  std::string out = "(";
  for (int d = 0; d < ndim; ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + (ndim == 1 ? ",)" : ")");
}

class Launcher {
 public:
  // cpu_only: the kernel is host code whatever qd.init chose (hand-written C++ kernels).
  Launcher(std::string name, nb::list params, nb::object compile_fn, bool cpu_only)
      : name_(std::move(name)), compile_fn_(std::move(compile_fn)), cpu_only_(cpu_only) {
    for (nb::handle p : params) params_.push_back(parse_param(nb::cast<nb::tuple>(p)));
    if (params_.size() > kMaxKernelArgs) {
      throw ValueError("Kernel '" + name_ + "' has " + std::to_string(params_.size()) +
                       " parameters; at most " + std::to_string(kMaxKernelArgs) + " are supported.");
    }
    for (const ParamSpec& p : params_) arg_names_.push_back(p.name);
  }
  Launcher(const Launcher&) = delete;  // owns compiled specializations
  Launcher& operator=(const Launcher&) = delete;

  // Called by compile_fn: the fields of the variant being compiled.
  void set_globals(const std::vector<std::shared_ptr<Array>>& globals) {
    if (params_.size() + globals.size() > kMaxKernelArgs) {
      throw ValueError("Kernel '" + name_ + "' uses too many fields and arguments (at most " +
                       std::to_string(kMaxKernelArgs) + ").");
    }
    pending_globals_ = globals;
  }

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
    for (size_t i = 0; i < n; ++i) {
      if (params_[i].is_array) key[i] = pack_array(i, args[i].ptr(), packed[i], holders[i], nullptr);
    }
    return spec_tuple(key);
  }

  nb::object call(nb::args args, nb::kwargs kwargs) {
    if (kwargs.size() == 0) return launch(args, nullptr);
    // qd_stream=<int> picks the CUDA stream explicitly (torch's cuda_stream, CuPy's ptr).
    uintptr_t stream = 0;
    bool has_stream = kwargs.contains("qd_stream");
    if (has_stream) {
      stream = nb::cast<uintptr_t>(kwargs["qd_stream"]);
      PyDict_DelItemString(kwargs.ptr(), "qd_stream");
    }
    nb::tuple bound = kwargs.size() != 0 ? bind_keywords(args, kwargs) : nb::tuple(args);
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
    for (size_t i = 0; i < n; ++i) {
      const ParamSpec& p = params_[i];
      if (p.is_array) {
        key[i] = pack_array(i, args[i].ptr(), packed[i], holders[i], &staging);
      } else {
        key[i] = 0;
        pack_scalar(p, args[i].ptr(), packed[i]);
      }
    }
    const Specialization* spec = last_;
    if (!spec || !same_key(*spec, key, n)) {
      spec = table_.find(key, static_cast<int>(n));
      if (!spec) spec = &compile(key, args);
      last_ = spec;
    }
    size_t total = n;
    for (const std::shared_ptr<Array>& g : spec->globals) pack_view(g->view(), packed[total++]);
    if (spec->cuda) return launch_on_cuda(*spec, packed, total, holders, staging, explicit_stream);
    QdArg ret{};
    {
      // Other Python threads may run while a kernel computes; the arguments stay alive through args.
      nb::gil_scoped_release release;
      run_entry(*spec, packed, &ret, name_, spec->arg_names);
    }
    return return_value(spec->returns, ret);
  }

  static nb::object return_value(const std::optional<DtypeCode>& returns, const QdArg& ret) {
    if (!returns) return nb::none();
    if (is_float(*returns)) return nb::float_(ret.scalar.f);
    if (*returns == DtypeCode::u1) return nb::bool_(ret.scalar.i != 0);
    if (*returns == DtypeCode::u64) return nb::int_(static_cast<uint64_t>(ret.scalar.i));
    return nb::int_(ret.scalar.i);
  }

  nb::object launch_on_cuda(const Specialization& spec, const QdArg* packed, size_t total, const ArgSlots& holders,
                            HostStaging& staging, const uintptr_t* explicit_stream) {
    int device = current_target().device;
    CUstream stream = choose_stream(holders.data(), params_.size(), explicit_stream, device);
    std::optional<QdArg> ret;
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
      ret = launch_cuda(spec.cuda, packed, static_cast<int>(total), stream, device, spec.arg_names);
    }
    if (!staging.empty()) staging.copy_back(stream, spec.cuda->param_written);
    return ret ? return_value(spec.returns, *ret) : nb::none();
  }

  // Keyword arguments take this slower path: positions are resolved by parameter name.
  nb::tuple bind_keywords(const nb::tuple& args, const nb::kwargs& kwargs) const {
    if (args.size() > params_.size()) throw_arity(args.size() + kwargs.size());
    std::vector<nb::object> bound(params_.size());
    for (size_t i = 0; i < args.size(); ++i) bound[i] = nb::borrow(args[i]);
    for (auto [key, value] : kwargs) {
      std::string name = nb::cast<std::string>(key);
      size_t i = 0;
      while (i < params_.size() && params_[i].name != name) ++i;
      if (i == params_.size()) {
        throw TypeError("Kernel '" + name_ + "' got an unexpected keyword argument '" + name + "'.");
      }
      if (bound[i].is_valid()) {
        throw TypeError("Kernel '" + name_ + "' got multiple values for argument '" + name + "'.");
      }
      bound[i] = nb::borrow(value);
    }
    nb::list out;
    for (size_t i = 0; i < bound.size(); ++i) {
      if (!bound[i].is_valid()) throw TypeError("Kernel '" + name_ + "' is missing argument '" + params_[i].name + "'.");
      out.append(bound[i]);
    }
    return nb::tuple(out);
  }

  static ParamSpec parse_param(nb::tuple t) {
    ParamSpec p;
    std::string kind = nb::cast<std::string>(t[0]);
    p.name = nb::cast<std::string>(t[1]);
    p.is_array = kind == "array";
    if (!p.is_array && kind != "scalar") throw ValueError("Launcher: unknown parameter kind '" + kind + "'.");
    if (!t[2].is_none()) {
      std::string dtype = nb::cast<std::string>(t[2]);
      p.dtype = dtype_from_name(dtype);
      if (!p.dtype) throw TypeError("Launcher: unknown dtype '" + dtype + "' for parameter '" + p.name + "'.");
    }
    if (p.is_array) {
      if (!t[3].is_none()) p.ndim = nb::cast<int>(t[3]);
      p.element_shape = nb::cast<std::vector<int64_t>>(t[4]);
    }
    return p;
  }

  [[noreturn]] void throw_arity(size_t given) const {
    std::string names;
    for (const ParamSpec& p : params_) names += (names.empty() ? "" : ", ") + p.name;
    throw TypeError("Kernel '" + name_ + "' takes " + std::to_string(params_.size()) + " argument(s) (" + names +
                    "), but " + std::to_string(given) + " were given.");
  }

  std::string where(size_t i) const { return "Kernel '" + name_ + "' argument '" + params_[i].name + "'"; }

  static void pack_view(const ArrayView& view, QdArg& out) {
    out.data = view.data;
    for (int d = 0; d < view.ndim; ++d) {
      out.shape[d] = view.shape[d];
      out.strides[d] = view.strides[d];
    }
  }

  // staging: where host arrays go when the kernel runs on a GPU; null to refuse them (spec_of).
  uint64_t pack_array(size_t i, PyObject* obj, QdArg& out, ArgSlot& holder, HostStaging* staging) {
    const ParamSpec& p = params_[i];
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
    if (!is_array) {
      throw TypeError(where(i) + ": expected an array (qd.ndarray, numpy array, torch tensor or DLPack "
                      "producer), but got " + describe_object(obj) + ".");
    }
    if (element_ndim > 0 && !p.element_shape.empty()) check_element_shape(i, view, element_ndim);
    // Arrays without element dims of their own (numpy, torch) take the annotation's trailing dims.
    if (element_ndim == 0 && !p.element_shape.empty()) {
      element_ndim = static_cast<int>(p.element_shape.size());
      int outer = view.ndim - element_ndim;
      for (int e = 0; e < element_ndim; ++e) {
        if (outer < 0 || view.shape[outer + e] != p.element_shape[e]) {
          throw ValueError(where(i) + ": expected trailing dimensions " +
                           shape_text(p.element_shape.data(), element_ndim) + " for its vector/matrix elements, "
                           "but got an array of shape " + shape_text(view.shape, view.ndim) + ".");
        }
      }
    }
    if (p.dtype && view.dtype != *p.dtype) {
      throw TypeError(where(i) + ": expected dtype " + std::string(dtype_name(*p.dtype)) + ", but got " +
                      std::string(dtype_name(view.dtype)) + " (" + describe_object(obj) + ").");
    }
    int outer = view.ndim - element_ndim;
    if (p.ndim >= 0 && outer != p.ndim) {
      throw ValueError(where(i) + ": expected " + std::to_string(p.ndim) + " dimension(s), but got an array of shape " +
                       shape_text(view.shape, view.ndim) + ".");
    }
    if (reinterpret_cast<uintptr_t>(view.data) % dtype_size(view.dtype) != 0) {
      throw ValueError(where(i) + ": the array's data is not aligned to its " +
                       std::to_string(dtype_size(view.dtype)) + "-byte elements; pass an aligned copy "
                       "(e.g. np.ascontiguousarray(x) or x.copy()).");
    }
    place_on_target(i, view, element_ndim, staging);
    pack_view(view, out);
    return array_signature(view, element_ndim);
  }

  // Arrays must live where the kernel runs; host arrays meeting a CUDA kernel are staged.
  void place_on_target(size_t i, ArrayView& view, int element_ndim, HostStaging* staging) {
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
      view = staging->stage(view, element_ndim, target.device, i);
    }
  }

  void warn_staging(size_t i, const ArrayView& view) {
    if (staging_warned_.size() < params_.size()) staging_warned_.resize(params_.size(), false);
    if (staging_warned_[i]) return;
    staging_warned_[i] = true;
    int64_t bytes = view.size() * dtype_size(view.dtype);
    std::string message = where(i) + " is in host memory but the kernel runs on cuda:" +
                          std::to_string(current_target().device) + "; it is copied to the device on every call, and back "
                          "when the kernel writes it (" + std::to_string(bytes) + " bytes each way). Pass a CUDA tensor, a CuPy "
                          "array or a qd.ndarray to avoid the copies.";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw nb::python_error();
  }

  // A qd vector/matrix container must have the annotation's element shape.
  void check_element_shape(size_t i, const ArrayView& view, int element_ndim) const {
    const std::vector<int64_t>& expected = params_[i].element_shape;
    const int64_t* given = view.shape + (view.ndim - element_ndim);
    bool same = static_cast<int>(expected.size()) == element_ndim;
    for (int e = 0; same && e < element_ndim; ++e) same = given[e] == expected[e];
    if (!same) {
      throw ValueError(where(i) + ": expected elements of shape " +
                       shape_text(expected.data(), static_cast<int>(expected.size())) + ", but got elements of shape " +
                       shape_text(given, element_ndim) + ".");
    }
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
    if (!is_bool && PyFloat_Check(obj)) {
      throw TypeError(where_scalar(p) + ": expected an integer for " + std::string(dtype_name(*p.dtype)) +
                      ", but got the float " + std::string(nb::repr(obj).c_str()) + "; convert it with int().");
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

  std::string where_scalar(const ParamSpec& p) const { return "Kernel '" + name_ + "' argument '" + p.name + "'"; }

  // The frontend's description of a signature: ("scalar", dtype) or
  // ("array", dtype, ndim, element_shape, contiguous, writable) per parameter.
  nb::tuple spec_tuple(const uint64_t* key) const {
    nb::list spec;
    for (size_t i = 0; i < params_.size(); ++i) {
      const ParamSpec& p = params_[i];
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
    for (size_t i = params_.size(); i < params.size(); ++i) entry.arg_names.push_back(params[i].name);
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
      entry.keep = cuda;
      return table_.add(std::move(entry));
    }
    auto kernel = nb::cast<std::shared_ptr<const CompiledKernel>>(compiled);
    attach_globals(entry, kernel->params);
    entry.entry = kernel->entry;
    entry.returns = kernel->returns;
    entry.assert_messages = &kernel->assert_messages;
    entry.keep = kernel;
    return table_.add(std::move(entry));
  }

  friend int launcher_traverse(PyObject* self, visitproc visit, void* arg);
  friend int launcher_clear(PyObject* self);

  std::string name_;
  std::vector<ParamSpec> params_;
  std::vector<std::string> arg_names_;
  nb::object compile_fn_;
  bool cpu_only_ = false;
  SpecializationTable table_;
  const Specialization* last_ = nullptr;
  std::vector<std::shared_ptr<Array>> pending_globals_;  // set by compile_fn, taken by the new variant
  std::vector<bool> staging_warned_;  // per parameter: the host-staging warning was given
};

// compile_fn usually closes over the kernel object that owns this launcher: let the GC see the cycle.
int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<Launcher>(self)->compile_fn_.ptr());
  return 0;
}

int launcher_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<Launcher>(self)->compile_fn_.reset();
  return 0;
}

PyType_Slot launcher_slots[] = {
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
  m.def("exit_fake_mode", [] { --fake_mode_depth; });
  nb::class_<Launcher>(m, "Launcher", nb::type_slots(launcher_slots))
      .def(nb::init<std::string, nb::list, nb::object, bool>(), nb::arg("name"), nb::arg("params"),
           nb::arg("compile_fn").none(), nb::arg("cpu_only") = false)
      .def("__call__", &Launcher::call)
      .def("set_globals", &Launcher::set_globals)
      .def("spec_of", &Launcher::spec_of, "The specialization (see compile_fn) that these arguments select.")
      .def("clear", &Launcher::clear, "Drops every compiled specialization.");
}

}  // namespace qd::bindings
