// src/bindings/module.cpp: the quadrants.runtime._core module: registers exceptions and each binding file.
#include <nanobind/nanobind.h>

#include "quadrants/errors.h"

namespace nb = nanobind;

namespace qd::bindings {
void bind_arrays(nb::module_& m);
void bind_runtime(nb::module_& m);
void bind_jit(nb::module_& m);
void bind_launch(nb::module_& m);
void bind_cuda_jit(nb::module_& m);
void bind_cuda(nb::module_& m);
void bind_kernel_method(nb::module_& m);
void bind_linalg(nb::module_& m);
}  // namespace qd::bindings

NB_MODULE(_core, m) {
  // Kernels defined at module level hold launchers until the interpreter's final collection, which
  // runs after nanobind's exit-time leak check; the check would report them on every exit.
  // tests/python/test_launch_args.py checks that dropped kernels are really collected.
  nb::set_leak_warnings(false);
  static nb::exception<qd::CompileError> compile_error(m, "KernelCompileError", PyExc_RuntimeError);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const qd::ArgumentError& e) {
      nb::object cls = nb::module_::import_("quadrants.base.errors").attr("KernelArgumentError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const qd::ArgumentTypeError& e) {
      nb::object cls = nb::module_::import_("quadrants.base.errors").attr("QuadrantsRuntimeTypeError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const qd::ArgumentValueError& e) {
      nb::object cls = nb::module_::import_("quadrants.base.errors").attr("InvalidArgumentValueError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const qd::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const qd::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const qd::OutOfBoundError& e) {
      nb::object cls = nb::module_::import_("quadrants.base.errors").attr("QuadrantsOutOfBoundError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const qd::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const qd::AssertionError& e) {
      // A failed kernel assert or an AD stack overflow: upstream's QuadrantsAssertionError (an AssertionError).
      nb::object cls = nb::module_::import_("quadrants.base.errors").attr("QuadrantsAssertionError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const qd::KernelUserError& e) {
      // Raised as _core.KernelUserError(kind, message, line, col); the frontend adds source context.
      nb::object cls = nb::module_::import_("quadrants.runtime._core").attr("KernelUserError");
      nb::object err = cls(e.kind == qd::KernelUserError::Kind::syntax ? "syntax" : "type",
                           e.what(), e.line, e.col);
      PyErr_SetObject(cls.ptr(), err.ptr());
    }
  });
  // A plain Python exception class: its args are (kind, message, line, col).
  nb::object builtins = nb::module_::import_("builtins");
  m.attr("KernelUserError") = builtins.attr("type")("KernelUserError",
      nb::make_tuple(builtins.attr("Exception")), nb::dict());
  m.attr("KernelUserError").attr("__module__") = "quadrants.runtime._core";

  qd::bindings::bind_arrays(m);
  qd::bindings::bind_runtime(m);
  qd::bindings::bind_jit(m);
  qd::bindings::bind_launch(m);
  qd::bindings::bind_kernel_method(m);
  qd::bindings::bind_cuda_jit(m);
  qd::bindings::bind_cuda(m);
  qd::bindings::bind_linalg(m);
}
