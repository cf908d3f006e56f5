// src/bindings/arg_adapters.cpp: container, numpy, torch, buffer-protocol, CUDA Array Interface and DLPack argument adapters.
#include "bindings/arg_adapters.h"

#include <structmember.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "quadrants/cuda.h"
#include "quadrants/dlpack.h"
#include "quadrants/errors.h"
#include "quadrants/interop.h"
#include "quadrants/launch.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

PyTypeObject* container_type = nullptr;
PyTypeObject* tensor_wrapper_type = nullptr;

// Where the `__slots__` member that holds a container's core array (`_array`) and a qd.Tensor's wrapped container
// (`_impl`) sits in their instances, -1 if it is not a slot. Genesis passes a hundred or more of these per launch,
// and the attribute protocol took about 20 ns for each read (the classes forbid subclasses to redefine them).
Py_ssize_t container_array_offset = -1;
Py_ssize_t wrapper_impl_offset = -1;

Py_ssize_t slot_offset(PyTypeObject* type, const char* name) {
  PyObject* descr = PyDict_GetItemString(type->tp_dict, name);  // borrowed
  if (!descr || Py_TYPE(descr) != &PyMemberDescr_Type) return -1;
  const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(descr)->d_member;
  return member->type == T_OBJECT_EX ? member->offset : -1;
}

// obj.<name>, borrowed: read from the slot at `offset` when it is set, else through the attribute protocol
// (which raises the class's own error for an unset one). The object keeps it alive for the call.
PyObject* read_member(PyObject* obj, Py_ssize_t offset, PyObject* name) {
  if (offset >= 0) {
    PyObject* value = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + offset);
    if (value) return value;
  }
  PyObject* value = PyObject_GetAttr(obj, name);
  if (!value) throw nb::python_error();
  Py_DECREF(value);
  return value;
}

// Exchange APIs found on tensor types, cached by type (torch.Tensor, nn.Parameter, ...).
struct ExchangeCache {
  PyTypeObject* type = nullptr;
  const DLPackExchangeAPI* api = nullptr;
};
ExchangeCache exchange_cache[4];
PyTypeObject* no_exchange_types[8] = {};

const DLPackExchangeAPI* exchange_api_of(PyTypeObject* type) {
  for (const ExchangeCache& entry : exchange_cache) {
    if (entry.type == type) return entry.api;
  }
  for (PyTypeObject* t : no_exchange_types) {
    if (t == type) return nullptr;
  }
  const DLPackExchangeAPI* api = nullptr;
  PyObject* capsule = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__");
  if (capsule && PyCapsule_IsValid(capsule, "dlpack_exchange_api")) {
    auto* candidate = static_cast<const DLPackExchangeAPI*>(PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
    // Members we use exist from 1.2 on; the table is static in the producer, so caching is safe.
    bool recent = candidate->header.version.major == 1 && candidate->header.version.minor >= 2;
    if (recent && candidate->dltensor_from_py_object_no_sync) api = candidate;
  }
  Py_XDECREF(capsule);
  PyErr_Clear();
  for (ExchangeCache& entry : exchange_cache) {
    if (!entry.type) {
      entry = {type, api};
      Py_INCREF(type);  // cached for the life of the process
      return api;
    }
  }
  for (PyTypeObject*& t : no_exchange_types) {
    if (!t && !api) {
      t = type;
      Py_INCREF(type);
      break;
    }
  }
  return api;
}

// numpy's buffer formats: an optional byte-order prefix and one type letter.
bool dtype_from_format(const char* format, Py_ssize_t itemsize, DtypeCode& out) {
  if (!format) format = "B";
  if (*format == '<' || *format == '=' || *format == '@' || *format == '|') ++format;
  if (format[0] == '\0' || format[1] != '\0') return false;
  char c = format[0];
  if (c == '?') return (out = DtypeCode::u1), true;
  if (c == 'e') return (out = DtypeCode::f16), true;
  if (c == 'f') return (out = DtypeCode::f32), true;
  if (c == 'd') return (out = DtypeCode::f64), true;
  bool is_signed = c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n';
  bool is_unsigned = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N';
  if (!is_signed && !is_unsigned) return false;
  static const DtypeCode signed_codes[] = {DtypeCode::i8, DtypeCode::i16, DtypeCode::i32, DtypeCode::i64};
  static const DtypeCode unsigned_codes[] = {DtypeCode::u8, DtypeCode::u16, DtypeCode::u32, DtypeCode::u64};
  int slot = itemsize == 1 ? 0 : itemsize == 2 ? 1 : itemsize == 4 ? 2 : itemsize == 8 ? 3 : -1;
  if (slot < 0) return false;
  out = is_signed ? signed_codes[slot] : unsigned_codes[slot];
  return true;
}

// numpy's public struct layouts (numpy/ndarraytypes.h), stable from numpy 1.7 through 2.x for the
// members read here. Reading them directly skips the buffer protocol's format string and bookkeeping.
struct NumpyDescrFields {
  PyObject_HEAD
  PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char unused_flags;
  int type_num;
};

struct NumpyArrayFields {
  PyObject_HEAD
  char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;  // bytes
  PyObject* base;
  NumpyDescrFields* descr;
  int flags;
};

PyTypeObject* numpy_type = nullptr;
constexpr int kNumpyWriteable = 0x0400;
constexpr int kNumpyOrdered = 0x0001 | 0x0002;  // NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS

// "shape (2,) and element strides (2,)", for the refusals below.
std::string shape_and_strides(const ArrayView& view) {
  std::string shape, strides;
  for (int d = 0; d < view.ndim; ++d) {
    shape += (d ? ", " : "") + std::to_string(view.shape[d]);
    strides += (d ? ", " : "") + std::to_string(view.strides[d]);
  }
  if (view.ndim == 1) shape += ",", strides += ",";
  return "shape (" + shape + ") and element strides (" + strides + ")";
}

// Upstream Quadrants takes numpy arrays in C order, copies Fortran-ordered ones, and refuses any other view
// with this message, which programs and tests match; we read Fortran order in place (same results). numpy's
// own flags decide, so views that are contiguous once size-1 dimensions are ignored pass.
void refuse_unordered_numpy(PyObject* obj, const ArrayView& view) {
  if (reinterpret_cast<NumpyArrayFields*>(obj)->flags & kNumpyOrdered) return;
  throw ValueError("Non contiguous numpy arrays are not supported: this view has " + shape_and_strides(view) +
                   ", neither C nor Fortran order; pass np.ascontiguousarray(x) instead (and copy the result back "
                   "if the kernel writes it).");
}

// Upstream refuses every torch tensor that is not contiguous (transposes, slices with steps), with this message.
// Empty tensors count as contiguous, as torch's is_contiguous() says.
void refuse_strided_torch(const ArrayView& view) {
  if (view.is_contiguous() || view.size() == 0) return;
  throw ValueError("Non contiguous tensors are not supported: this tensor has " + shape_and_strides(view) +
                   "; pass x.contiguous() instead (and copy the result back if the kernel writes it).");
}

// numpy type numbers (NPY_BOOL ... NPY_DOUBLE, NPY_HALF) of the dtypes we support; LONG and
// LONGLONG are both 64-bit on the platforms we build for.
bool dtype_from_numpy(int type_num, DtypeCode& out) {
  switch (type_num) {
    case 0: out = DtypeCode::u1; return true;
    case 1: out = DtypeCode::i8; return true;
    case 2: out = DtypeCode::u8; return true;
    case 3: out = DtypeCode::i16; return true;
    case 4: out = DtypeCode::u16; return true;
    case 5: out = DtypeCode::i32; return true;
    case 6: out = DtypeCode::u32; return true;
    case 7: case 9: out = DtypeCode::i64; return sizeof(long) == 8 || type_num == 9;
    case 8: case 10: out = DtypeCode::u64; return sizeof(unsigned long) == 8 || type_num == 10;
    case 11: out = DtypeCode::f32; return true;
    case 12: out = DtypeCode::f64; return true;
    case 23: out = DtypeCode::f16; return true;
    default: return false;
  }
}

// Exact numpy.ndarray of a native-order supported dtype with whole-element strides; anything else
// (subclasses, byte-swapped, odd strides) returns false and takes the buffer protocol.
bool view_from_numpy(PyObject* obj, ArrayView& view) {
  auto* a = reinterpret_cast<NumpyArrayFields*>(obj);
  if (a->nd > QD_MAX_NDIM || a->descr->byteorder == '>') return false;
  DtypeCode dtype;
  if (!dtype_from_numpy(a->descr->type_num, dtype)) return false;
  int64_t itemsize = dtype_size(dtype);
  for (int d = 0; d < a->nd; ++d) {
    if (a->strides[d] % itemsize != 0) return false;
    view.shape[d] = a->dimensions[d];
    view.strides[d] = a->strides[d] / itemsize;
  }
  view.data = a->data;
  view.dtype = dtype;
  view.ndim = a->nd;
  view.writable = (a->flags & kNumpyWriteable) != 0;
  view.device = {};
  refuse_unordered_numpy(obj, view);
  return true;
}

bool view_from_buffer(PyObject* obj, ArrayView& view, ArgSlot& holder) {
  if (PyObject_GetBuffer(obj, &holder.buffer, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return false;
  }
  holder.has_buffer = true;
  const Py_buffer& b = holder.buffer;
  if (!dtype_from_format(b.format, b.itemsize, view.dtype)) {
    throw TypeError("quadrants cannot use arrays of buffer format '" + std::string(b.format ? b.format : "B") +
                    "'; supported dtypes are bool, int8-64, uint8-64 and float16/32/64.");
  }
  if (b.ndim > QD_MAX_NDIM) {
    throw ValueError("quadrants supports arrays of up to " + std::to_string(QD_MAX_NDIM) + " dimensions, but got " +
                     std::to_string(b.ndim) + ".");
  }
  view.data = b.buf;
  view.ndim = b.ndim;
  view.writable = !b.readonly;
  view.device = {};
  for (int d = 0; d < b.ndim; ++d) {
    view.shape[d] = b.shape[d];
    if (b.strides[d] % b.itemsize != 0) {
      throw ValueError("quadrants needs strides that are whole elements, but this array has byte strides "
                       "that are not multiples of its item size; pass np.ascontiguousarray(x) instead.");
    }
    view.strides[d] = b.strides[d] / b.itemsize;
  }
  // numpy subclasses and byte-swapped arrays come this way
  if (numpy_type && PyObject_TypeCheck(obj, numpy_type)) refuse_unordered_numpy(obj, view);
  return true;
}

// torch.Tensor once torch is imported; quadrants never imports torch itself.
bool is_torch_tensor(PyObject* obj) {
  static PyObject* tensor_type = nullptr;  // kept for the life of the process
  if (!tensor_type) {
    PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
    if (!torch) return false;
    tensor_type = PyObject_GetAttrString(torch, "Tensor");
    if (!tensor_type || !PyType_Check(tensor_type)) {  // torch is still being imported
      PyErr_Clear();
      Py_CLEAR(tensor_type);
      return false;
    }
  }
  return PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(tensor_type));
}

bool is_cupy_array(PyObject* obj) {
  return std::string(Py_TYPE(obj)->tp_name).rfind("cupy", 0) == 0 || describe_object(obj).rfind("cupy.", 0) == 0;
}

// Streams in the CUDA Array Interface and DLPack: 1 is the legacy default stream, which a null
// handle also names in the driver API; 2 (per-thread default) and real handles pass through.
CUstream stream_of_interface(uintptr_t value) { return value == 1 ? nullptr : reinterpret_cast<CUstream>(value); }
uintptr_t interface_of_stream(CUstream stream) { return stream ? reinterpret_cast<uintptr_t>(stream) : 1; }

// A __cuda_array_interface__ typestr: byte order, kind letter, item size in bytes ("<f4", "|b1").
DtypeCode dtype_from_typestr(const std::string& typestr) {
  bool well_formed = typestr.size() >= 3 && typestr.size() <= 4 && std::strchr("<>|=", typestr[0]) &&
                     typestr.find_first_not_of("0123456789", 2) == std::string::npos;
  if (!well_formed) {
    throw TypeError("its __cuda_array_interface__ typestr '" + typestr + "' is not a byte order, a kind and an "
                    "item size, such as '<f4'.");
  }
  int itemsize = std::stoi(typestr.substr(2));
  if (typestr[0] == '>' && itemsize > 1) {
    throw TypeError("its __cuda_array_interface__ typestr '" + typestr + "' is big-endian; quadrants needs "
                    "native (little-endian) byte order, such as '<" + typestr.substr(1) + "'.");
  }
  const char* kinds = "iufb";                       // DLPack codes 0 int, 1 uint, 2 float, 6 bool
  const char* kind = std::strchr(kinds, typestr[1]);
  std::optional<DtypeCode> dtype;
  if (kind && *kind) {  // not the terminator, which strchr also finds
    uint8_t code = kind - kinds == 3 ? 6 : static_cast<uint8_t>(kind - kinds);
    dtype = dtype_from_dlpack(DlpackDtype{code, static_cast<uint8_t>(itemsize * 8), 1});
  }
  if (!dtype) {
    throw TypeError("quadrants cannot use arrays of __cuda_array_interface__ typestr '" + typestr +
                    "'; supported are b1, i1/i2/i4/i8, u1/u2/u4/u8 and f2/f4/f8.");
  }
  return *dtype;
}

// An integer member of the interface, or TypeError naming it.
long long interface_integer(PyObject* value, const char* what) {
  long long v = PyLong_Check(value) ? PyLong_AsLongLong(value) : -1;
  if (!PyLong_Check(value) || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw TypeError(std::string("its __cuda_array_interface__ ") + what + " must be an int, but got " +
                    describe_object(value) + ".");
  }
  return v;
}

// The tuple members shape and strides (a list is accepted too); returns the length.
int interface_tuple(PyObject* value, const char* what, int64_t* out) {
  nb::object items = nb::steal(PySequence_Fast(value, ""));
  if (!items.is_valid() || PyUnicode_Check(value)) {
    PyErr_Clear();
    throw TypeError(std::string("its __cuda_array_interface__ ") + what + " must be a tuple, but is " +
                    describe_object(value) + ".");
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
  if (n > QD_MAX_NDIM) {
    throw ValueError("quadrants supports arrays of up to " + std::to_string(QD_MAX_NDIM) + " dimensions, but got " +
                     std::to_string(n) + ".");
  }
  std::string entry = std::string(what) + " entry";
  for (Py_ssize_t d = 0; d < n; ++d) {
    out[d] = interface_integer(PySequence_Fast_GET_ITEM(items.ptr(), d), entry.c_str());
  }
  return static_cast<int>(n);
}

// shape, and strides in bytes (absent or None: C order) turned into whole elements.
void shape_from_interface(const nb::dict& interface, ArrayView& view) {
  PyObject* shape = PyDict_GetItemString(interface.ptr(), "shape");
  if (!shape) throw TypeError("its __cuda_array_interface__ has no 'shape'.");
  view.ndim = interface_tuple(shape, "'shape'", view.shape);
  PyObject* strides = PyDict_GetItemString(interface.ptr(), "strides");
  if (!strides || strides == Py_None) {
    fill_contiguous_strides(view);
    return;
  }
  int64_t bytes[QD_MAX_NDIM];
  if (interface_tuple(strides, "'strides'", bytes) != view.ndim) {
    throw ValueError("its __cuda_array_interface__ 'strides' has " + std::to_string(PyObject_Length(strides)) +
                     " entries for a 'shape' of " + std::to_string(view.ndim) + ".");
  }
  int64_t itemsize = dtype_size(view.dtype);
  for (int d = 0; d < view.ndim; ++d) {
    if (bytes[d] % itemsize != 0) {
      throw ValueError("quadrants needs strides that are whole elements, but this __cuda_array_interface__ has "
                       "a stride of " + std::to_string(bytes[d]) + " bytes for " + std::to_string(itemsize) +
                       "-byte items; pass a contiguous copy instead.");
    }
    view.strides[d] = bytes[d] / itemsize;
  }
}

// data = (pointer, read_only), which must be memory of a CUDA device (0 only for empty arrays).
void data_from_interface(const nb::dict& interface, ArrayView& view) {
  PyObject* data = PyDict_GetItemString(interface.ptr(), "data");
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
    throw TypeError("its __cuda_array_interface__ 'data' must be a tuple (pointer, read_only), but is " +
                    (data ? describe_object(data) : std::string("missing")) + ".");
  }
  auto pointer = static_cast<uintptr_t>(interface_integer(PyTuple_GET_ITEM(data, 0), "'data' pointer"));
  view.data = reinterpret_cast<void*>(pointer);
  int read_only = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  if (read_only < 0) throw nb::python_error();
  view.writable = !read_only;
  std::optional<int> device = cuda_pointer_device(view.data);
  if (pointer == 0 && view.size() == 0) device = current_target().cuda ? current_target().device : 0;
  if (!device) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(pointer));
    throw ValueError("its __cuda_array_interface__ data pointer " + std::string(hex) + " is not CUDA device "
                     "memory" + (cuda_status().empty() ? "" : " (CUDA is not usable here: " + cuda_status() + ")") +
                     "; quadrants reads such arrays in place, so they must live on a GPU.");
  }
  view.device = {DeviceId::Kind::cuda, *device};
}

// Version 3's stream: the producer's pending work on the array, which the launch must wait for.
void stream_from_interface(const nb::dict& interface, ArgSlot& holder) {
  PyObject* stream = PyDict_GetItemString(interface.ptr(), "stream");
  if (!stream || stream == Py_None) return;
  long long value = interface_integer(stream, "'stream'");
  if (value <= 0) {
    throw ValueError("its __cuda_array_interface__ 'stream' is " + std::to_string(value) + "; the interface "
                     "allows None, 1 (legacy default stream), 2 (per-thread default stream) or a stream handle.");
  }
  holder.has_producer_stream = true;
  holder.producer_stream = stream_of_interface(static_cast<uintptr_t>(value));
}

// Numba device arrays, PyCUDA, CuPy: read in place. Borrows nothing beyond obj itself, which the
// caller's argument tuple keeps alive through the launch.
bool view_from_cuda_array_interface(PyObject* obj, ArrayView& view, ArgSlot& holder) {
  static PyObject* interface_name = PyUnicode_InternFromString("__cuda_array_interface__");
  nb::object value = nb::steal(PyObject_GetAttr(obj, interface_name));
  if (!value.is_valid()) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw nb::python_error();
    PyErr_Clear();  // torch CPU tensors raise AttributeError from the property: not an interface
    return false;
  }
  if (!PyDict_Check(value.ptr())) {
    throw TypeError("its __cuda_array_interface__ must be a dict, but is " + describe_object(value.ptr()) + ".");
  }
  nb::dict interface = nb::borrow<nb::dict>(value);
  PyObject* version = PyDict_GetItemString(interface.ptr(), "version");
  if (!version) throw TypeError("its __cuda_array_interface__ has no 'version'.");
  interface_integer(version, "'version'");
  PyObject* mask = PyDict_GetItemString(interface.ptr(), "mask");
  if (mask && mask != Py_None) {
    throw TypeError("its __cuda_array_interface__ has a 'mask'; quadrants cannot use masked arrays, so pass "
                    "the array without its mask.");
  }
  PyObject* typestr = PyDict_GetItemString(interface.ptr(), "typestr");
  if (!typestr || !PyUnicode_Check(typestr)) throw TypeError("its __cuda_array_interface__ has no 'typestr' string.");
  view.dtype = dtype_from_typestr(PyUnicode_AsUTF8(typestr));
  shape_from_interface(interface, view);
  data_from_interface(interface, view);
  stream_from_interface(interface, holder);
  holder.from_cupy = is_cupy_array(obj);
  holder.from_torch = is_torch_tensor(obj);
  if (holder.from_torch) refuse_strided_torch(view);
  return true;
}

// Any other __dlpack__ producer. A CUDA producer is given the stream we expect to launch on, so it
// orders its pending work before ours; the slot records that stream in case choose_stream picks another.
bool view_from_dlpack_producer(PyObject* obj, ArrayView& view, ArgSlot& holder) {
  static PyObject* dlpack_name = PyUnicode_InternFromString("__dlpack__");
  if (!PyObject_HasAttr(obj, dlpack_name)) return false;
  int device = 0;
  std::optional<CUstream> consumer;
  if (dlpack_on_cuda(obj, &device)) {
    holder.from_cupy = is_cupy_array(obj);
    holder.from_torch = is_torch_tensor(obj);
    consumer = holder.from_torch ? torch_current_stream(device) : holder.from_cupy ? cupy_current_stream() : nullptr;
    holder.has_producer_stream = true;
    holder.producer_stream = *consumer;
  }
  nb::object core = nb::module_::import_("quadrants.runtime._core").attr("Array").attr("from_dlpack")(dlpack_capsule(obj, consumer));
  view = nb::cast<const Array&>(core).view();
  holder.keep = core.release().ptr();
  if (!view.is_contiguous() && is_torch_tensor(obj)) refuse_strided_torch(view);
  return true;
}

}  // namespace

void register_numpy_type(nb::handle type) {
  Py_XDECREF(reinterpret_cast<PyObject*>(numpy_type));
  numpy_type = reinterpret_cast<PyTypeObject*>(type.inc_ref().ptr());
}

void register_container_type(nb::handle type) {
  Py_XDECREF(reinterpret_cast<PyObject*>(container_type));
  container_type = reinterpret_cast<PyTypeObject*>(type.inc_ref().ptr());
  container_array_offset = slot_offset(container_type, "_array");
}

// quadrants.ad's torch_grad(tensor), registered on import; called per torch tensor argument only once the
// program has passed a tensor that requires grad to some kernel (the first specialization that meets one
// turns this on, quadrants/lang/pitfalls.py): torch's requires_grad getter costs about 45 ns per tensor.
PyObject* torch_grad_hook = nullptr;

void register_torch_grad_hook(nb::handle hook) {
  Py_XDECREF(torch_grad_hook);
  torch_grad_hook = hook.inc_ref().ptr();
}

bool torch_grad_checks_enabled() { return torch_grad_hook != nullptr; }

// Upstream gives a tensor that requires grad a zero .grad when a kernel receives it, so that kernel.grad()
// and the torch.autograd.Functions written around kernels find one.
void prepare_torch_grad(PyObject* obj) {
  if (!torch_grad_hook) return;
  static PyObject* requires_grad = PyUnicode_InternFromString("requires_grad");
  PyObject* flag = PyObject_GetAttr(obj, requires_grad);
  if (!flag) throw nb::python_error();
  Py_DECREF(flag);  // a bool singleton: comparing its address after the decref is safe
  if (flag != Py_True) return;
  PyObject* result = PyObject_CallOneArg(torch_grad_hook, obj);
  if (!result) throw nb::python_error();
  Py_DECREF(result);
}

void register_tensor_wrapper_type(nb::handle type) {
  Py_XDECREF(reinterpret_cast<PyObject*>(tensor_wrapper_type));
  tensor_wrapper_type = reinterpret_cast<PyTypeObject*>(type.inc_ref().ptr());
  wrapper_impl_offset = slot_offset(tensor_wrapper_type, "_impl");
}

std::string describe_object(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  std::string name = type->tp_name;
  if (name.find('.') != std::string::npos) return name;  // static types spell their module: numpy.ndarray
  nb::object module = nb::getattr(nb::handle(reinterpret_cast<PyObject*>(type)), "__module__", nb::str("?"));
  return std::string(nb::str(module).c_str()) + "." + name;
}

const ArrayView* lent_view(PyObject* obj, int& element_ndim) {
  element_ndim = 0;
  if (Py_TYPE(obj) == numpy_type) return nullptr;  // the most common external array, in one compare
  if (tensor_wrapper_type && PyObject_TypeCheck(obj, tensor_wrapper_type)) {
    // qd.Tensor wraps a field or ndarray: upstream kernels take the wrapper wherever they take what it wraps.
    static PyObject* impl_name = PyUnicode_InternFromString("_impl");
    obj = read_member(obj, wrapper_impl_offset, impl_name);
  }
  if (container_type && PyObject_TypeCheck(obj, container_type)) {
    static PyObject* array_name = PyUnicode_InternFromString("_array");
    obj = read_member(obj, container_array_offset, array_name);  // the container keeps it alive
    const Array& array = nb::cast<const Array&>(nb::handle(obj));
    element_ndim = array.element_ndim();
    return &array.view();  // not copied; throws after qd.reset()
  }
  if (nb::isinstance<Array>(obj)) {
    const Array& array = nb::cast<const Array&>(nb::handle(obj));  // the argument itself keeps it alive
    element_ndim = array.element_ndim();
    return &array.view();
  }
  return nullptr;
}

bool converted_view(PyObject* obj, ArrayView& view, ArgSlot& holder) {
  if (Py_TYPE(obj) == numpy_type && view_from_numpy(obj, view)) return true;
  if (const DLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj))) {
    DLTensor tensor;
    if (api->dltensor_from_py_object_no_sync(obj, &tensor) != 0) throw nb::python_error();
    view = view_of_dltensor(tensor, true);
    if (!view.is_contiguous() && is_torch_tensor(obj)) refuse_strided_torch(view);
    holder.exchange_api = api;
    prepare_torch_grad(obj);
    return true;
  }
  // A type may offer the buffer protocol and refuse it for device memory (CuPy 14 does): then the
  // interfaces below still apply.
  if (PyObject_CheckBuffer(obj) && view_from_buffer(obj, view, holder)) return true;
  // Before __dlpack__: the interface is read in place, while a DLPack import allocates a capsule
  // and an Array per call. Objects with both (CuPy, Numba, torch CUDA tensors) take this path.
  if (view_from_cuda_array_interface(obj, view, holder)) return true;
  return view_from_dlpack_producer(obj, view, holder);
}

bool is_quadrants_array(PyObject* obj) {
  return (tensor_wrapper_type && PyObject_TypeCheck(obj, tensor_wrapper_type)) ||
         (container_type && PyObject_TypeCheck(obj, container_type)) || nb::isinstance<Array>(obj);
}

bool dlpack_on_cuda(PyObject* obj, int* device) {
  static PyObject* device_name = PyUnicode_InternFromString("__dlpack_device__");
  if (!PyObject_HasAttr(obj, device_name)) return false;
  nb::object where = nb::handle(obj).attr(device_name)();
  int type = nb::cast<int>(where[0]);
  *device = nb::cast<int>(where[1]);
  return type == kDLCUDA || type == kDLCUDAManaged;
}

nb::object dlpack_capsule(PyObject* obj, std::optional<CUstream> consumer) {
  nb::object producer = nb::handle(obj).attr("__dlpack__");
  nb::dict options;  // no stream for host producers, some of which take no stream keyword at all
  if (consumer) options["stream"] = nb::int_(interface_of_stream(*consumer));
  try {
    options["max_version"] = nb::make_tuple(1, 0);
    return producer(**options);
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    PyDict_DelItemString(options.ptr(), "max_version");  // before DLPack 1.0
    return producer(**options);
  }
}

CUstream torch_current_stream(int device) {
  nb::object stream = nb::module_::import_("torch.cuda").attr("current_stream")(device);
  return reinterpret_cast<CUstream>(nb::cast<uintptr_t>(stream.attr("cuda_stream")));
}

CUstream cupy_current_stream() {
  nb::object stream = nb::module_::import_("cupy.cuda").attr("get_current_stream")();
  return reinterpret_cast<CUstream>(nb::cast<uintptr_t>(stream.attr("ptr")));
}

}  // namespace qd::bindings
