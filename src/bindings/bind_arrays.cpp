// src/bindings/bind_arrays.cpp: _core.Array (ndarray/field storage), copies and DLPack capsules.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstring>

#include "bindings/arg_adapters.h"
#include "quadrants/array.h"
#include "quadrants/cuda.h"
#include "quadrants/errors.h"
#include "quadrants/interop.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kLegacyName = "dltensor";

// Runs only for capsules nobody consumed (a consumer renames them to "used_..."), per the spec.
void delete_unconsumed_versioned(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kVersionedName)) return;
  auto* managed = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
  if (managed->deleter) managed->deleter(managed);
}

void delete_unconsumed_legacy(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kLegacyName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
  if (managed->deleter) managed->deleter(managed);
}

nb::object to_dlpack(const Array& array, bool versioned) {
  PyObject* capsule = nullptr;
  if (versioned) {
    DLManagedTensorVersioned* managed = export_dlpack_versioned(array);
    capsule = PyCapsule_New(managed, kVersionedName, delete_unconsumed_versioned);
    if (!capsule) managed->deleter(managed);  // nobody else will
  } else {
    DLManagedTensor* managed = export_dlpack_legacy(array);
    capsule = PyCapsule_New(managed, kLegacyName, delete_unconsumed_legacy);
    if (!capsule) managed->deleter(managed);
  }
  if (!capsule) throw nb::python_error();
  return nb::steal(capsule);
}

std::shared_ptr<Array> from_dlpack_capsule(nb::handle capsule) {
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, kVersionedName)) {
    auto* managed = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersionedName));
    PyCapsule_SetName(cap, "used_dltensor_versioned");  // we own it now, even if the import throws
    return import_dlpack_versioned(managed);
  }
  if (PyCapsule_IsValid(cap, kLegacyName)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacyName));
    PyCapsule_SetName(cap, "used_dltensor");
    return import_dlpack_legacy(managed);
  }
  throw TypeError("Expected a DLPack capsule named 'dltensor_versioned' or 'dltensor', but got " +
                  std::string(nb::repr(capsule).c_str()) + "; it may have been consumed already.");
}

// Copies run on the legacy default stream, so that is the consumer stream a CUDA producer is given.
std::shared_ptr<Array> from_dlpack_producer(nb::handle obj) {
  if (!PyObject_HasAttrString(obj.ptr(), "__dlpack__")) {
    throw TypeError("Expected an object supporting DLPack (__dlpack__), but got " +
                    std::string(Py_TYPE(obj.ptr())->tp_name) + ".");
  }
  int device = 0;
  std::optional<CUstream> consumer;
  if (dlpack_on_cuda(obj.ptr(), &device)) consumer = nullptr;
  return from_dlpack_capsule(dlpack_capsule(obj.ptr(), consumer));
}

nb::tuple to_tuple(const int64_t* values, int n) {
  nb::list out;
  for (int i = 0; i < n; ++i) out.append(values[i]);
  return nb::tuple(out);
}

// Host-only copies stay in copy_view; anything touching device memory goes through the CUDA
// runtime on the legacy default stream, which orders it after torch's and CuPy's default streams.
void copy_any(const ArrayView& dst, const ArrayView& src, bool parallel = false) {
  if (dst.device.kind == DeviceId::Kind::cpu && src.device.kind == DeviceId::Kind::cpu) {
    copy_view(dst, src, parallel);
  } else {
    nb::gil_scoped_release release;
    copy_view_cuda(dst, src, nullptr);
  }
}

// A 0-d view of the element at byte offset `offset` of view, on view's device.
ArrayView element_view(const ArrayView& view, int64_t offset) {
  return ArrayView{static_cast<char*>(view.data) + offset, view.dtype, 0, {}, {}, view.device, view.writable};
}

// One element at ptr of dtype `from`, converted to T through the copy kernel's conversions.
template <typename T>
T load_as(DtypeCode from, DtypeCode to, const char* ptr) {
  T value{};
  ArrayView dst{&value, to, 0, {}, {}, {}, true};
  ArrayView src{const_cast<char*>(ptr), from, 0, {}, {}, {}, true};
  copy_view(dst, src);
  return value;
}

// Reads the element at `offset` (host or device memory) as a Python bool/int/float.
nb::object read_scalar(const ArrayView& view, int64_t offset) {
  alignas(8) char host[8] = {};
  ArrayView local{host, view.dtype, 0, {}, {}, {}, true};
  copy_any(local, element_view(view, offset));
  const char* ptr = host;
  if (view.dtype == DtypeCode::u1) return nb::bool_(*reinterpret_cast<const bool*>(ptr));
  if (is_float(view.dtype)) return nb::float_(load_as<double>(view.dtype, DtypeCode::f64, ptr));
  if (view.dtype == DtypeCode::u64) return nb::int_(*reinterpret_cast<const uint64_t*>(ptr));
  return nb::int_(load_as<int64_t>(view.dtype, DtypeCode::i64, ptr));
}

[[noreturn]] void throw_does_not_fit(DtypeCode dtype, nb::handle value) {
  throw ValueError(std::string(nb::repr(value).c_str()) + " does not fit in " + std::string(dtype_name(dtype)) +
                   "; storing it would wrap around or be undefined.");
}

// Whether the integer value (u64 when is_u64) is in dtype's range; floats and bool take any.
bool integer_fits(DtypeCode dtype, int64_t i, bool is_u64) {
  if (is_float(dtype) || dtype == DtypeCode::u1) return true;
  if (is_u64) return dtype == DtypeCode::u64;
  int bits = dtype_size(dtype) * 8;
  if (!is_signed(dtype)) return i >= 0 && (bits == 64 || i <= (int64_t(1) << bits) - 1);
  return bits == 64 || (i >= -(int64_t(1) << (bits - 1)) && i <= (int64_t(1) << (bits - 1)) - 1);
}

// Encodes a Python number (int, float, bool, numpy scalar, 0-d array) as one host element of dtype.
// Integers must fit the dtype; floats stored into integer arrays truncate toward zero and must fit too.
void encode_scalar(DtypeCode dtype, char* ptr, nb::handle value) {
  PyObject* obj = value.ptr();
  ArrayView dst{ptr, dtype, 0, {}, {}, {}, true};
  int64_t i = 0;
  double f = 0;
  bool is_u64 = false;
  if (PyLong_Check(obj) || (!PyFloat_Check(obj) && PyIndex_Check(obj))) {  // numpy ints have __index__
    nb::object index = nb::steal(PyNumber_Index(obj));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    i = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow > 0) {
      uint64_t u = PyLong_AsUnsignedLongLong(index.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        throw_does_not_fit(dtype, value);
      }
      std::memcpy(&i, &u, sizeof i);
      is_u64 = true;
    } else if (overflow < 0) {
      throw_does_not_fit(dtype, value);
    }
  } else if (PyFloat_Check(obj) || (PyNumber_Check(obj) && PyObject_HasAttrString(obj, "__float__"))) {
    f = PyFloat_AsDouble(obj);
    if (f == -1.0 && PyErr_Occurred()) throw nb::python_error();
    if (is_float(dtype) || dtype == DtypeCode::u1) {
      copy_view(dst, ArrayView{&f, DtypeCode::f64, 0, {}, {}, {}, true});
      return;
    }
    double whole = std::trunc(f);  // C's conversion, which is only defined when the result fits
    if (!(whole >= -9223372036854775808.0 && whole < 9223372036854775808.0)) throw_does_not_fit(dtype, value);
    i = static_cast<int64_t>(whole);
  } else {
    throw TypeError("Expected a number to store into a " + std::string(dtype_name(dtype)) + " array, but got " +
                    std::string(nb::type_name(value.type()).c_str()) + ".");
  }
  if (!integer_fits(dtype, i, is_u64)) throw_does_not_fit(dtype, value);
  copy_view(dst, ArrayView{&i, is_u64 ? DtypeCode::u64 : DtypeCode::i64, 0, {}, {}, {}, true});
}

void fill(Array& array, nb::handle value) {
  const ArrayView& view = array.view();
  if (!view.writable) throw ValueError("fill(): the array is read-only.");
  if (view.size() == 0) return;
  alignas(8) char one[8] = {};
  encode_scalar(view.dtype, one, value);
  ArrayView src = view;
  src.data = one;
  src.device = {};
  for (int d = 0; d < src.ndim; ++d) src.strides[d] = 0;  // broadcast the one element
  copy_any(view, src);
}

}  // namespace

void bind_arrays(nb::module_& m) {
  nb::class_<Array>(m, "Array")
      .def_static("create",
                  [](const std::string& dtype, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& element_shape, bool huge_pages, bool sparse) {
                    std::optional<DtypeCode> code = dtype_from_name(dtype);
                    if (!code) throw TypeError("Unknown dtype '" + dtype + "'.");
                    if (huge_pages && sparse) throw ValueError("Array.create(): huge_pages and sparse exclude each other.");
                    HostPages pages = huge_pages ? HostPages::huge : sparse ? HostPages::sparse : HostPages::normal;
                    return Array::create(*code, shape, element_shape, pages);
                  },
                  nb::arg("dtype"), nb::arg("shape"), nb::arg("element_shape"), nb::arg("huge_pages") = false,
                  nb::arg("sparse") = false,
                  "huge_pages: dense storage of 4 MiB or more in transparent huge pages; sparse: sparse pools and "
                  "lists, reserved at their worst case and committed only where written (HostPages in array.h)")
      .def_static("from_dlpack", &from_dlpack_capsule, "Takes ownership of a DLPack capsule.")
      .def_static("from_dlpack_producer", &from_dlpack_producer, nb::arg("obj").none(),
                  "Imports obj through obj.__dlpack__(); a CUDA producer orders its work before the legacy stream.")
      .def_prop_ro("dtype", [](const Array& a) { return std::string(dtype_name(a.view().dtype)); })
      .def_prop_ro("shape", [](const Array& a) { return to_tuple(a.view().shape, a.view().ndim); })
      .def_prop_ro("strides", [](const Array& a) { return to_tuple(a.view().strides, a.view().ndim); })
      .def_prop_ro("element_ndim", &Array::element_ndim)
      .def("component", &Array::component, nb::arg("element_index"))
      .def("zero_outer", &Array::zero_outer, nb::arg("begin"), nb::arg("end"),
           "Zeroes outer rows [begin, end); whole pages go back to the OS instead of being written.")
      .def("permuted", &Array::permuted, nb::arg("axes"), nb::arg("element_ndim"))
      .def_prop_ro("data_ptr", [](const Array& a) { return reinterpret_cast<uintptr_t>(a.view().data); })
      .def_prop_ro("writable", [](const Array& a) { return a.view().writable; })
      .def_prop_ro("is_contiguous", [](const Array& a) { return a.view().is_contiguous(); })
      .def_prop_ro("device", [](const Array& a) {
        return nb::make_tuple(static_cast<int>(a.view().device.kind), a.view().device.index);
      })
      .def_prop_ro("released", &Array::released)
      .def("release", &Array::release)
      .def("get", [](const Array& a, const std::vector<int64_t>& index) {
        const ArrayView& view = a.view();
        return read_scalar(view, element_offset(view, index));
      })
      .def("set", [](Array& a, const std::vector<int64_t>& index, nb::handle value) {
        const ArrayView& view = a.view();
        if (!view.writable) throw ValueError("Cannot write into a read-only array.");
        alignas(8) char host[8] = {};
        encode_scalar(view.dtype, host, value);
        copy_any(element_view(view, element_offset(view, index)), ArrayView{host, view.dtype, 0, {}, {}, {}, true});
      })
      .def("fill", &fill)
      .def("copy_from", [](Array& dst, const Array& src, const std::string& what, bool parallel) {
        check_copy_compatible(dst.view(), src.view(), what.c_str());
        copy_any(dst.view(), src.view(), parallel);
      }, nb::arg("src"), nb::arg("what") = "copy_from", nb::arg("parallel") = false,
         "parallel: split large copies over the thread pool (for destinations whose pages are mapped)")
      .def("to_dlpack", &to_dlpack, nb::arg("versioned") = true);
}

}  // namespace qd::bindings
