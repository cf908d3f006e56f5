// src/bindings/bind_launch.cpp: _core.Launcher, a Python kernel's call: Python arguments converted into a
// launch frame of the core's KernelLauncher (src/launch/), which picks, compiles and runs the variant.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "bindings/annotation_check.h"
#include "bindings/arg_adapters.h"
#include "bindings/cuda_streams.h"
#include "bindings/scalar_args.h"
#include "bindings/torch_profiler.h"
#include "launch/launch_frame.h"
#include "quadrants/errors.h"
#include "quadrants/launch.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

// While tracing a torch op with fake tensors (torch.compile, torch.library.opcheck), kernels only
// need to exist, not run: the op's Python body allocates its outputs and the kernels are skipped.
thread_local int fake_mode_depth = 0;  // per thread: tracing in one thread must not skip another's kernels

// What a launch asks of Python: warnings through the warnings module (an error where they are made
// errors), and the GIL released while the kernel runs and while arrays are copied.
class PythonHooks final : public LaunchHooks {
 public:
  void warn(const std::string& message) override {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw nb::python_error();
  }
  void release() override { state_ = PyEval_SaveThread(); }
  void reacquire() override { PyEval_RestoreThread(state_); }

 private:
  PyThreadState* state_ = nullptr;
};

std::vector<LaunchParam> launch_params(const std::vector<ParamSpec>& specs) {
  std::vector<LaunchParam> params;
  for (const ParamSpec& p : specs) {
    params.push_back({p.is_array ? LaunchParam::Kind::array : LaunchParam::Kind::scalar, p.name, p.dtype, p.count, 0});
  }
  return params;
}

class Launcher {
 public:
  // cpu_only: the kernel is host code whatever qd.init chose (hand-written C++ kernels).
  // result_fn: None, or called with the tuple of a kernel's returned values (see returned()).
  // qualname: the kernel function's qualified name, which an argument that does not fit its annotation names (as
  // upstream's error names the function); the name when not given.
  Launcher(std::string name, nb::list params, nb::object compile_fn, bool cpu_only, nb::object result_fn,
           std::optional<std::string> qualname)
      : name_(std::move(name)),
        qualname_(qualname ? *qualname : name_),
        params_(parse_params(params)),
        core_(name_, launch_params(params_), [this](const CompileRequest& r) { return compile(r); }, cpu_only),
        compile_fn_(std::move(compile_fn)) {
    if (!result_fn.is_none()) result_fn_ = std::move(result_fn);
  }
  Launcher(const Launcher&) = delete;  // owns compiled specializations
  Launcher& operator=(const Launcher&) = delete;

  // Called by compile_fn: the fields of the variant being compiled.
  void set_globals(const std::vector<std::shared_ptr<Array>>& globals) {
    pending_globals_ = globals;
  }

  void clear() { core_.clear(); }
  int quick_builds() const { return core_.quick_variants(); }

  // The specialization these arguments select, without compiling or running anything.
  nb::tuple spec_of(nb::args args) {
    size_t n = params_.size();
    if (args.size() != n) throw_arity(args.size());
    PythonHooks hooks;
    LaunchFrame frame(core_, hooks, LaunchFrame::Mode::describe);
    ArgSlots holders(n);
    for (size_t i = 0; i < n; ++i) {
      if (params_[i].is_array) add_array(frame, i, args[i].ptr(), holders[i]);
    }
    return spec_tuple(frame.key());
  }

  // kwargs: null or a dict (the tp_call protocol).
  nb::object call(const nb::tuple& args, PyObject* kwargs) {
    if (!kwargs || PyDict_GET_SIZE(kwargs) == 0) return launch(args, nullptr);
    nb::dict kw = nb::borrow<nb::dict>(kwargs);
    // qd_stream= picks the CUDA stream explicitly: a qd.Stream (its handle), an integer (torch's cuda_stream,
    // CuPy's ptr) or None (as if not given). On the CPU, where launches are synchronous, it changes nothing.
    uintptr_t stream = 0;
    bool has_stream = kw.contains("qd_stream");
    if (has_stream) {
      nb::object given = kw["qd_stream"];
      has_stream = !given.is_none();
      if (has_stream) stream = nb::cast<uintptr_t>(nb::hasattr(given, "handle") ? given.attr("handle") : given);
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
    PythonHooks hooks;
    LaunchFrame frame(core_, hooks);
    ArgSlots holders(n);  // keeps what the conversions borrowed alive through the run
    for (size_t i = 0; i < n; ++i) {
      const ParamSpec& p = params_[i];
      if (p.is_array) {
        add_array(frame, i, args[i].ptr(), holders[i]);
      } else if (p.is_vector) {
        pack_vector(p, i, name_, args[i].ptr(), frame.slots(i));
      } else {
        pack_scalar(p, i, name_, args[i].ptr(), *frame.slots(i));
      }
    }
    const Specialization* spec = frame.select(const_cast<nb::tuple*>(&args));
    // A first call before qd.init() packed its arrays for the default target, and the compile initialized
    // the runtime, which may have picked CUDA (QD_ARCH): pack again, so host arrays are staged.
    if (!spec) return launch(args, explicit_stream);
    std::optional<TorchProfilerRange> profiled;  // the launch under the kernel's name in torch.profiler
    if (torch_profiler_active()) profiled.emplace(name_);
    CUstream stream = spec->cuda ? choose_stream(holders.data(), n, explicit_stream, frame.target().device) : nullptr;
    return returned(spec->returns, frame.run(*spec, stream));
  }

  // Parameter i's Python array into the frame, checked against its annotation first.
  void add_array(LaunchFrame& frame, size_t i, PyObject* obj, ArgSlot& holder) {
    int element_ndim = 0;
    const ArrayView* lent = naming_argument(i, [&] { return lent_view(obj, element_ndim); });
    if (lent) {  // quadrants' own arrays (Genesis passes a hundred a launch): no view to convert into
      check_annotation(params_[i], qualname_, obj, *lent, element_ndim);
      frame.add_array(i, *lent, element_ndim);
      return;
    }
    ArrayView converted;
    bool is_array = naming_argument(i, [&] { return converted_view(obj, converted, holder); });
    if (!is_array) {  // upstream's wording first, which programs and tests match
      throw ArgumentTypeError("Invalid type for argument " + params_[i].name + ", got " +
                              std::string(nb::repr(obj).c_str()) + ": " + where(i) + ": expected an array (qd.ndarray, "
                              "numpy array, torch tensor or DLPack producer), but got " + describe_object(obj) + ".");
    }
    check_annotation(params_[i], qualname_, obj, converted, element_ndim);
    frame.add_array(i, converted, element_ndim);
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

  static std::vector<ParamSpec> parse_params(nb::list params) {
    std::vector<ParamSpec> parsed;
    for (nb::handle p : params) parsed.push_back(parse_param(nb::cast<nb::tuple>(p)));
    return parsed;
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

  // fn(), with an array quadrants cannot use (its TypeError or ValueError, the plain RuntimeError of an array that
  // qd.reset() freed, or the AttributeError of a container without one array, as a struct field) said to be
  // argument i's.
  template <typename Fn>
  auto naming_argument(size_t i, Fn&& fn) const -> decltype(fn()) {
    try {
      return fn();
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_AttributeError)) throw;
      throw nb::attribute_error((where(i) + ": " + nb::str(e.value()).c_str()).c_str());
    } catch (const TypeError& e) {
      throw TypeError(where(i) + ": " + e.what());
    } catch (const ValueError& e) {
      throw ValueError(where(i) + ": " + e.what());
    } catch (const std::runtime_error& e) {
      if (typeid(e) != typeid(std::runtime_error)) throw;  // the other errors keep their own type
      throw std::runtime_error(where(i) + ": " + e.what());
    }
  }

  // The frontend's description of a signature: ("scalar", dtype), ("vector", dtype, shape) or
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
      ArraySignature sig = unpack_array_signature(key[i]);
      nb::list element_shape;
      for (int e = 0; e < sig.element_ndim && e < 2; ++e) element_shape.append(sig.element_shape[e]);
      spec.append(nb::make_tuple("array", std::string(dtype_name(sig.dtype)), sig.ndim, nb::tuple(element_shape),
                                 sig.contiguous, sig.writable));
    }
    return nb::tuple(spec);
  }

  // A miss: the frontend turns the argument signature into IR and returns a CompiledKernel (or a
  // CudaCompiledKernel), having named the variant's fields through set_globals. It also sees the
  // arguments, to warn once about pitfalls (float64 mixed with float32, autograd).
  CompiledVariant compile(const CompileRequest& request) {
    const nb::tuple& args = *static_cast<const nb::tuple*>(request.context);
    nb::tuple spec = spec_tuple(request.key);
    if (!compile_fn_.is_valid() || compile_fn_.is_none()) {
      throw std::runtime_error("Kernel '" + name_ + "' cannot compile: it was garbage-collected or has no compile_fn.");
    }
    nb::object compiled = compile_fn_(spec, args);
    CompiledVariant variant;
    if (!nb::try_cast(compiled, variant.cuda)) variant.cpu = nb::cast<std::shared_ptr<const CompiledKernel>>(compiled);
    variant.globals = std::move(pending_globals_);
    pending_globals_.clear();
    return variant;
  }

  friend int launcher_traverse(PyObject* self, visitproc visit, void* arg);
  friend PyObject* launcher_call(PyObject* self, PyObject* args, PyObject* kwargs);
  friend int launcher_clear(PyObject* self);

  std::string name_;
  std::string qualname_;  // for annotation errors (see the constructor)
  std::vector<ParamSpec> params_;
  KernelLauncher core_;  // the specializations and the launch itself
  nb::object compile_fn_;
  nb::object result_fn_;  // invalid when the kernel returns at most a plain scalar
  std::vector<std::shared_ptr<Array>> pending_globals_;  // set by compile_fn, taken by the new variant
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
    set_target(Target{kind == "cuda", device});
  }, nb::arg("kind"), nb::arg("device") = 0, "Where kernels run from now on (qd.init calls this).");
  m.def("enter_fake_mode", [] { ++fake_mode_depth; }, "Kernels return without running until the matching exit.");
  m.def("last_launch_tasks", &last_launch_tasks,
        "The task count (top-level parallel loops and serial runs) of the kernel launched last; 0 before any.");
  m.def("exit_fake_mode", [] { --fake_mode_depth; });
  m.def("_rethrow_pending", [] {
    std::exception_ptr e = std::exchange(pending_exception, nullptr);
    if (e) std::rethrow_exception(e);
  });
  rethrow_pending = m.attr("_rethrow_pending").inc_ref().ptr();
  nb::class_<Launcher>(m, "Launcher", nb::type_slots(launcher_slots))
      .def(nb::init<std::string, nb::list, nb::object, bool, nb::object, std::optional<std::string>>(),
           nb::arg("name"), nb::arg("params"), nb::arg("compile_fn").none(), nb::arg("cpu_only") = false,
           nb::arg("result_fn").none() = nb::none(), nb::arg("qualname").none() = nb::none())
      .def("set_globals", &Launcher::set_globals)
      .def("spec_of", &Launcher::spec_of, "The specialization (see compile_fn) that these arguments select.")
      .def("clear", &Launcher::clear, "Drops every compiled specialization.")
      .def("_quick_builds", &Launcher::quick_builds,
           "Tiered compile: how many specializations still run their quick build.");
}

}  // namespace qd::bindings
