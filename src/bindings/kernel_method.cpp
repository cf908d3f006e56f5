// src/bindings/kernel_method.cpp: _core.KernelMethod, how a @qd.data_oriented class holds its kernels.
//
// Read from an instance, a plain function gives a bound method, and `obj.kernel.grad` would then be the
// kernel's unbound adjoint (a bound method hides its instance from attribute lookups). Upstream lets
// `obj.kernel.grad()` run the adjoint for obj, so the class holds each kernel in a KernelMethod instead:
// from an instance it gives a BoundKernel, which calls the kernel with the instance first, as a bound
// method does (vectorcall, no tuple when the caller leaves a slot in front of the arguments), and whose
// attributes are the kernel's, with `grad` bound to the same instance. From the class it gives the kernel.
// A call `obj.kernel(...)` makes no BoundKernel at all (see kernel_method_vectorcall).
#include <Python.h>
#include <structmember.h>

#include <nanobind/nanobind.h>

#include <cstddef>

namespace nb = nanobind;

namespace qd::bindings {
namespace {

struct BoundKernel {
  PyObject_HEAD
  PyObject* func;  // the kernel (or its adjoint), called with `self` first
  PyObject* self;
  vectorcallfunc vectorcall;
};

struct KernelMethod {
  PyObject_HEAD
  PyObject* func;
  vectorcallfunc vectorcall;
};

PyTypeObject* bound_kernel_type = nullptr;

PyObject* new_bound_kernel(PyObject* func, PyObject* self);

PyObject* bound_kernel_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* bound = reinterpret_cast<BoundKernel*>(callable);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) {  // the caller lent us args[-1]: put self there
    PyObject** slots = const_cast<PyObject**>(args) - 1;
    PyObject* saved = slots[0];
    slots[0] = bound->self;
    PyObject* result = PyObject_Vectorcall(bound->func, slots, static_cast<size_t>(nargs + 1), kwnames);
    slots[0] = saved;
    return result;
  }
  constexpr Py_ssize_t kOnStack = 16;
  PyObject* stack[kOnStack];
  PyObject** slots = total + 1 <= kOnStack ? stack : static_cast<PyObject**>(PyMem_Malloc((total + 1) * sizeof(PyObject*)));
  if (!slots) return PyErr_NoMemory();
  slots[0] = bound->self;
  for (Py_ssize_t k = 0; k < total; ++k) slots[k + 1] = args[k];
  PyObject* result = PyObject_Vectorcall(bound->func, slots, static_cast<size_t>(nargs + 1), kwnames);
  if (slots != stack) PyMem_Free(slots);
  return result;
}

// The kernel's signature without its first parameter, as inspect gives for a bound method.
PyObject* bound_signature(PyObject* func) {
  nb::object inspect = nb::module_::import_("inspect");
  nb::object signature = inspect.attr("signature")(nb::handle(func));
  nb::list rest;
  bool first = true;
  for (nb::handle parameter : signature.attr("parameters").attr("values")()) {
    if (!first) rest.append(parameter);
    first = false;
  }
  nb::dict replaced;
  replaced["parameters"] = rest;
  return signature.attr("replace")(**replaced).release().ptr();
}

// Its own members (__func__, __self__) first, then the kernel's attributes; `grad` is bound to self too.
PyObject* bound_kernel_getattro(PyObject* object, PyObject* name) {
  auto* bound = reinterpret_cast<BoundKernel*>(object);
  if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "__signature__") == 0) {
    try {
      return bound_signature(bound->func);
    } catch (nb::python_error& e) {
      e.restore();
      return nullptr;
    }
  }
  if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "grad") == 0) {
    PyObject* adjoint = PyObject_GetAttr(bound->func, name);
    if (!adjoint) return nullptr;
    PyObject* result = new_bound_kernel(adjoint, bound->self);
    Py_DECREF(adjoint);
    return result;
  }
  PyObject* own = PyObject_GenericGetAttr(object, name);
  if (own || !PyErr_ExceptionMatches(PyExc_AttributeError)) return own;
  PyErr_Clear();
  return PyObject_GetAttr(bound->func, name);
}

int bound_kernel_traverse(PyObject* object, visitproc visit, void* arg) {
  auto* bound = reinterpret_cast<BoundKernel*>(object);
  Py_VISIT(Py_TYPE(object));
  Py_VISIT(bound->func);
  Py_VISIT(bound->self);
  return 0;
}

int bound_kernel_clear(PyObject* object) {
  auto* bound = reinterpret_cast<BoundKernel*>(object);
  Py_CLEAR(bound->func);
  Py_CLEAR(bound->self);
  return 0;
}

void bound_kernel_dealloc(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);
  PyObject_GC_UnTrack(object);
  bound_kernel_clear(object);
  PyObject_GC_Del(object);
  Py_DECREF(type);
}

PyObject* bound_kernel_repr(PyObject* object) {
  auto* bound = reinterpret_cast<BoundKernel*>(object);
  return PyUnicode_FromFormat("<bound kernel %R of %R>", bound->func, bound->self);
}

PyMemberDef bound_kernel_members[] = {
    {"__func__", T_OBJECT, offsetof(BoundKernel, func), READONLY, nullptr},
    {"__self__", T_OBJECT, offsetof(BoundKernel, self), READONLY, nullptr},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BoundKernel, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot bound_kernel_slots[] = {
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_getattro, reinterpret_cast<void*>(bound_kernel_getattro)},
    {Py_tp_traverse, reinterpret_cast<void*>(bound_kernel_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(bound_kernel_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(bound_kernel_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(bound_kernel_repr)},
    {Py_tp_members, bound_kernel_members},
    {0, nullptr}};

PyType_Spec bound_kernel_spec = {"quadrants.runtime._core.BoundKernel", sizeof(BoundKernel), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                                 bound_kernel_slots};

PyObject* new_bound_kernel(PyObject* func, PyObject* self) {
  auto* bound = PyObject_GC_New(BoundKernel, bound_kernel_type);
  if (!bound) return nullptr;
  Py_INCREF(func);
  Py_INCREF(self);
  bound->func = func;
  bound->self = self;
  bound->vectorcall = bound_kernel_vectorcall;
  PyObject_GC_Track(reinterpret_cast<PyObject*>(bound));
  return reinterpret_cast<PyObject*>(bound);
}

PyObject* kernel_method_get(PyObject* descriptor, PyObject* instance, PyObject*) {
  PyObject* func = reinterpret_cast<KernelMethod*>(descriptor)->func;
  if (!instance || instance == Py_None) return Py_NewRef(func);
  return new_bound_kernel(func, instance);
}

// `obj.kernel(...)`: Py_TPFLAGS_METHOD_DESCRIPTOR lets the interpreter call the descriptor with obj first
// instead of making a BoundKernel, as it does for plain functions (0.30 us a call, not 0.38).
PyObject* kernel_method_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  return PyObject_Vectorcall(reinterpret_cast<KernelMethod*>(callable)->func, args, nargsf, kwnames);
}

PyObject* kernel_method_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* func = nullptr;
  static const char* names[] = {"func", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:KernelMethod", const_cast<char**>(names), &func)) return nullptr;
  if (!PyCallable_Check(func)) {
    PyErr_Format(PyExc_TypeError, "KernelMethod(func): func must be a kernel, but got %R.", func);
    return nullptr;
  }
  auto* method = reinterpret_cast<KernelMethod*>(type->tp_alloc(type, 0));
  if (!method) return nullptr;
  method->func = Py_NewRef(func);
  method->vectorcall = kernel_method_vectorcall;
  return reinterpret_cast<PyObject*>(method);
}

// The kernel's own attributes (__doc__, __wrapped__, grad, ...) through the descriptor as well.
PyObject* kernel_method_getattro(PyObject* object, PyObject* name) {
  PyObject* own = PyObject_GenericGetAttr(object, name);
  if (own || !PyErr_ExceptionMatches(PyExc_AttributeError)) return own;
  PyErr_Clear();
  return PyObject_GetAttr(reinterpret_cast<KernelMethod*>(object)->func, name);
}

int kernel_method_traverse(PyObject* object, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(object));
  Py_VISIT(reinterpret_cast<KernelMethod*>(object)->func);
  return 0;
}

int kernel_method_clear(PyObject* object) {
  Py_CLEAR(reinterpret_cast<KernelMethod*>(object)->func);
  return 0;
}

void kernel_method_dealloc(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);
  PyObject_GC_UnTrack(object);
  kernel_method_clear(object);
  type->tp_free(object);
  Py_DECREF(type);
}

PyMemberDef kernel_method_members[] = {
    {"__func__", T_OBJECT, offsetof(KernelMethod, func), READONLY, nullptr},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(KernelMethod, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot kernel_method_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(kernel_method_new)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_descr_get, reinterpret_cast<void*>(kernel_method_get)},
    {Py_tp_getattro, reinterpret_cast<void*>(kernel_method_getattro)},
    {Py_tp_traverse, reinterpret_cast<void*>(kernel_method_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(kernel_method_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(kernel_method_dealloc)},
    {Py_tp_members, kernel_method_members},
    {0, nullptr}};

PyType_Spec kernel_method_spec = {
    "quadrants.runtime._core.KernelMethod", sizeof(KernelMethod), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    kernel_method_slots};

}  // namespace

void bind_kernel_method(nb::module_& m) {
  bound_kernel_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&bound_kernel_spec));
  if (!bound_kernel_type) throw nb::python_error();
  m.attr("BoundKernel") = nb::borrow(reinterpret_cast<PyObject*>(bound_kernel_type));
  PyObject* method_type = PyType_FromSpec(&kernel_method_spec);
  if (!method_type) throw nb::python_error();
  m.attr("KernelMethod") = nb::steal(method_type);
}

}  // namespace qd::bindings
