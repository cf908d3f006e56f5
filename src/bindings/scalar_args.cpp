// src/bindings/scalar_args.cpp: Python numbers and vectors into a kernel's scalar QdArgs, checked against the
// parameter's dtype, with upstream's words when they do not fit.
#include "bindings/scalar_args.h"

#include <nanobind/nanobind.h>

#include <cstring>
#include <string>

#include "quadrants/errors.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

// The conversions of one parameter; the kernel's name and the parameter's position go into messages.
class ScalarConverter {
 public:
  ScalarConverter(const std::string& kernel, size_t index) : kernel_(kernel), index_(index) {}

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
      throw ArgumentTypeError("Argument (" + std::to_string(index_) + ",) (type=" +
                              std::string(nb::repr(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj)))).c_str()) +
                              ") cannot be converted into required type " + type + ": " + where_scalar(p) +
                              ": expected an integer for " + type + ", but got the float " +
                              std::string(nb::repr(obj).c_str()) + ", which would truncate; convert it with int().");
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

  std::string where_scalar(const ParamSpec& p) const { return argument_text(p, kernel_); }

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

 private:
  const std::string& kernel_;
  size_t index_;
};

}  // namespace

void pack_scalar(const ParamSpec& p, size_t index, const std::string& kernel, PyObject* obj, QdArg& out) {
  ScalarConverter(kernel, index).pack_scalar(p, obj, out);
}

void pack_vector(const ParamSpec& p, size_t index, const std::string& kernel, PyObject* obj, QdArg* out) {
  ScalarConverter(kernel, index).pack_vector(p, obj, out);
}

}  // namespace qd::bindings
