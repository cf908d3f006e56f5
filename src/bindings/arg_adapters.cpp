// src/bindings/arg_adapters.cpp: container, torch, buffer-protocol and DLPack argument adapters.
#include "bindings/arg_adapters.h"

#include <cstring>
#include <string>

#include "quadrants/dlpack.h"
#include "quadrants/errors.h"
#include "quadrants/interop.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

PyTypeObject* container_type = nullptr;

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
}

std::string describe_object(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  std::string name = type->tp_name;
  if (name.find('.') != std::string::npos) return name;  // static types spell their module: numpy.ndarray
  nb::object module = nb::getattr(nb::handle(reinterpret_cast<PyObject*>(type)), "__module__", nb::str("?"));
  return std::string(nb::str(module).c_str()) + "." + name;
}

bool view_from_object(PyObject* obj, ArrayView& view, int& element_ndim, ArgSlot& holder) {
  element_ndim = 0;
  if (container_type && PyObject_TypeCheck(obj, container_type)) {
    static PyObject* array_name = PyUnicode_InternFromString("_array");
    nb::object core_array = nb::steal(PyObject_GetAttr(obj, array_name));
    if (!core_array.is_valid()) throw nb::python_error();
    const Array& array = nb::cast<const Array&>(core_array);
    view = array.view();  // throws after qd.reset()
    element_ndim = array.element_ndim();
    return true;
  }
  if (Py_TYPE(obj) == numpy_type && view_from_numpy(obj, view)) return true;
  if (nb::isinstance<Array>(obj)) {
    const Array& array = nb::cast<const Array&>(nb::handle(obj));
    view = array.view();
    element_ndim = array.element_ndim();
    return true;
  }
  if (const DLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj))) {
    DLTensor tensor;
    if (api->dltensor_from_py_object_no_sync(obj, &tensor) != 0) throw nb::python_error();
    view = view_of_dltensor(tensor, true);
    holder.exchange_api = api;
    return true;
  }
  if (PyObject_CheckBuffer(obj)) return view_from_buffer(obj, view, holder);
  static PyObject* dlpack_name = PyUnicode_InternFromString("__dlpack__");
  if (PyObject_HasAttr(obj, dlpack_name)) {
    nb::object producer = nb::steal(PyObject_GetAttr(obj, dlpack_name));
    nb::object capsule;
    try {
      capsule = producer(nb::arg("max_version") = nb::make_tuple(1, 0));
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_TypeError)) throw;
      capsule = producer();
    }
    nb::object core = nb::module_::import_("quadrants._core").attr("Array").attr("from_dlpack")(capsule);
    view = nb::cast<const Array&>(core).view();
    holder.keep = core.release().ptr();
    holder.from_cupy = std::string(Py_TYPE(obj)->tp_name).rfind("cupy", 0) == 0 ||
                       describe_object(obj).rfind("cupy.", 0) == 0;
    return true;
  }
  return false;
}

}  // namespace qd::bindings
