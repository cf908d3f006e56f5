// src/bindings/torch_profiler.cpp: reads torch's profiler flag without importing torch; opens named ranges.
#include "bindings/torch_profiler.h"

namespace qd::bindings {
namespace {

// Strong references kept for the life of the process (never released: they may outlive the
// interpreter's teardown order otherwise). Only touched with the GIL held.
PyObject* profiler_globals = nullptr;  // torch.autograd.profiler.__dict__, once that module exists
PyObject* flag_name = nullptr;         // interned "_is_profiler_enabled"
Py_ssize_t modules_seen = -1;          // len(sys.modules) when we last looked for the module

// The class whose instances are record_function ranges: torch._C._profiler._RecordFunctionFast (a C
// context manager, torch 2.2+), else torch.autograd.profiler.record_function. Null if neither exists.
PyObject* range_class() {
  static PyObject* cls = [] {
    PyObject* found = nullptr;
    if (PyObject* module = PyImport_ImportModule("torch._C._profiler")) {
      found = PyObject_GetAttrString(module, "_RecordFunctionFast");
      Py_DECREF(module);
    }
    if (!found) {
      PyErr_Clear();
      if (PyObject* module = PyImport_ImportModule("torch.autograd.profiler")) {
        found = PyObject_GetAttrString(module, "record_function");
        Py_DECREF(module);
      }
    }
    if (!found) PyErr_Clear();
    return found;
  }();
  return cls;
}

}  // namespace

bool torch_profiler_active() {
  if (profiler_globals == nullptr) {
    // Importing torch adds modules, so the search runs only when sys.modules has grown or shrunk.
    PyObject* modules = PyImport_GetModuleDict();
    Py_ssize_t size = PyDict_GET_SIZE(modules);
    if (size == modules_seen) return false;
    modules_seen = size;
    PyObject* module = PyDict_GetItemString(modules, "torch.autograd.profiler");  // borrowed
    if (module == nullptr || !PyModule_Check(module)) return false;
    flag_name = PyUnicode_InternFromString("_is_profiler_enabled");
    profiler_globals = PyModule_GetDict(module);
    Py_INCREF(profiler_globals);
  }
  return PyDict_GetItemWithError(profiler_globals, flag_name) == Py_True;
}

TorchProfilerRange::TorchProfilerRange(const std::string& name) {
  PyObject* cls = range_class();
  if (cls == nullptr) return;
  PyObject* text = PyUnicode_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
  PyObject* range = text ? PyObject_CallOneArg(cls, text) : nullptr;
  Py_XDECREF(text);
  PyObject* entered = range ? PyObject_CallMethod(range, "__enter__", nullptr) : nullptr;
  if (entered == nullptr) {  // a profiling failure must not fail the launch
    PyErr_WriteUnraisable(cls);
    Py_XDECREF(range);
    return;
  }
  Py_DECREF(entered);
  range_ = range;
}

TorchProfilerRange::~TorchProfilerRange() {
  if (range_ == nullptr) return;
  // Runs also while a kernel error propagates; keep any pending Python error out of the call.
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyObject* result = PyObject_CallMethod(range_, "__exit__", "OOO", Py_None, Py_None, Py_None);
  if (result == nullptr) PyErr_WriteUnraisable(range_);
  Py_XDECREF(result);
  Py_DECREF(range_);
  PyErr_Restore(type, value, traceback);
}

}  // namespace qd::bindings
