# tests/python/test_launch_errors.py: argument errors at launch, read-only arrays, debug bounds checks, qd.reset().
import re

import numpy as np
import pytest
import torch

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


@qd.kernel
def store(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32, value: qd.f32):
    x[n] = value


@qd.kernel
def first_to_one(x: qd.types.ndarray()):
    x[0] = 1


@qd.kernel
def total(x: qd.types.ndarray(ndim=1)) -> qd.f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def raises_exactly(exception, message):
    """pytest.raises for the whole message text."""
    return pytest.raises(exception, match="^" + re.escape(message) + "$")


# Wrong arguments: each names the kernel, the parameter, what was expected and what was given.


def test_dtype_mismatch_with_an_annotated_dtype():
    with pytest.raises(TypeError, match=re.escape("Kernel 'store' argument 'x': expected dtype f32, but got i32")):
        store(np.zeros(3, dtype=np.int32), 0, 1.0)
    with raises_exactly(TypeError, "Invalid value for argument x - required array has dtype=f32, array with dtype=f64 "
                        "is provided: Kernel 'store' argument 'x': expected dtype f32, but got f64 (torch.Tensor)."):
        store(torch.zeros(3, dtype=torch.float64), 0, 1.0)


def test_dtype_mismatch_describes_a_numpy_array_once():
    with raises_exactly(TypeError, "Invalid value for argument x - required array has dtype=f32, array with dtype=i32 "
                        "is provided: Kernel 'store' argument 'x': expected dtype f32, but got i32 (numpy.ndarray)."):
        store(np.zeros(3, dtype=np.int32), 0, 1.0)


def test_ndim_mismatch():
    with raises_exactly(ValueError, "Invalid value for argument x - required array has ndim=1, array with 2 dimensions "
                        "is provided: Kernel 'store' argument 'x': expected 1 dimension(s), but got an array of "
                        "shape (3, 3)."):
        store(np.zeros((3, 3), dtype=np.float32), 0, 1.0)


def test_vector_annotation_checks_trailing_dimensions_of_plain_arrays():
    @qd.kernel
    def norms(v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1)):
        for i in v:
            v[i] = v[i] * 2

    with raises_exactly(ValueError, "Invalid value for argument v - required element_shape=(3,), array with element "
                        "shape of (2,) is provided: Kernel "
                        "'test_vector_annotation_checks_trailing_dimensions_of_plain_arrays.<locals>.norms' argument 'v': "
                        "expected trailing dimensions (3,) for "
                        "its vector/matrix elements, but got an array of shape (4, 2)."):
        norms(np.zeros((4, 2), dtype=np.float32))


def test_vector_annotation_rejects_a_vector_ndarray_of_another_length():
    @qd.kernel
    def double(v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1)):
        for i in v:
            v[i] = v[i] * 2

    with pytest.raises(ValueError, match="argument 'v'.*\\(3,\\)"):
        double(qd.Vector.ndarray(2, qd.f32, shape=(4,)))


@pytest.mark.parametrize("given, described", [([1.0, 2.0], "builtins.list"), (None, "builtins.NoneType"),
                                              (3.0, "builtins.float")])
def test_a_non_array_for_an_ndarray_param(given, described):
    # upstream's QuadrantsRuntimeTypeError (a TypeError), its wording first
    with raises_exactly(qd.QuadrantsRuntimeTypeError, f"Invalid type for argument x, got {given!r}: Kernel 'store' "
                        "argument 'x': expected an array (qd.ndarray, numpy array, torch tensor or DLPack producer), "
                        f"but got {described}."):
        store(given, 0, 1.0)


def test_a_string_for_scalar_params():
    x = np.zeros(3, dtype=np.float32)
    with raises_exactly(TypeError, "Kernel 'store' argument 'n': expected an integer for i32, but got builtins.str."):
        store(x, "1", 1.0)
    with raises_exactly(TypeError, "Kernel 'store' argument 'value': expected a number for f32, but got "
                        "builtins.str."):
        store(x, 1, "1.0")
    assert x.tolist() == [0, 0, 0]


def test_a_float_for_an_int_param():
    x = np.zeros(3, dtype=np.float32)
    with raises_exactly(qd.QuadrantsRuntimeTypeError, "Argument (1,) (type=<class 'float'>) cannot be converted into "
                        "required type i32: Kernel 'store' argument 'n': expected an integer for i32, but got the "
                        "float 1.5, which would truncate; convert it with int()."):
        store(x, 1.5, 1.0)
    assert x.tolist() == [0, 0, 0]


@pytest.mark.parametrize("args", [(), (np.zeros(3, dtype=np.float32),), (np.zeros(3, dtype=np.float32), 0, 1.0, 2)],
                         ids=["none", "too_few", "too_many"])
def test_wrong_argument_counts(args):
    first = {0: "Missing argument 'x'", 1: "Missing argument 'n'", 4: "Too many arguments"}[len(args)]
    message = f"{first}: kernel 'store' takes 3 argument(s) (x, n, value), but {len(args)} were given."
    with raises_exactly(qd.QuadrantsSyntaxError, message):  # upstream's type, and a TypeError as for any call
        store(*args)
    with raises_exactly(TypeError, message):
        store(*args)


def test_keyword_arguments_bind_by_name():
    x = np.zeros(3, dtype=np.float32)
    store(x, 1, value=2.5)
    store(value=4.0, n=2, x=x)
    assert x.tolist() == [0, 2.5, 4.0]


def test_keyword_argument_errors_name_the_argument():
    x = np.zeros(3, dtype=np.float32)
    with raises_exactly(qd.QuadrantsSyntaxError, "Unexpected argument 'val': kernel 'store' has no parameter of "
                        "that name (its parameters: x, n, value)."):
        store(x, 1, val=2.0)
    with raises_exactly(TypeError, "Kernel 'store' got multiple values for argument 'n'."):
        store(x, 1, n=2)
    with raises_exactly(TypeError, "Missing argument 'value' of kernel 'store' (its parameters: x, n, value)."):
        store(x=x, n=1)
    with raises_exactly(TypeError, "Kernel 'store' got multiple values for argument 'value'."):
        store(x, 1, 2.0, value=2.0)
    with raises_exactly(TypeError, "Too many arguments: kernel 'store' takes 3 argument(s) (x, n, value), but 5 "
                        "were given."):
        store(x, 1, 2.0, 3.0, value=2.0)
    assert x.tolist() == [0, 0, 0]


def test_a_failed_call_leaves_the_kernel_usable():
    x = np.zeros(3, dtype=np.float32)
    with pytest.raises(TypeError):
        store(x, 1, "bad")
    store(x, 1, 5.0)
    assert x.tolist() == [0, 5, 0]


@pytest.mark.cpu_only  # under QD_TEST_ARCH=cuda the CPU arch is CUDA, where the tensor is welcome
@pytest.mark.skipif(not torch.cuda.is_available(), reason="torch has no CUDA device here")
def test_a_cuda_tensor_on_the_cpu_arch():
    with pytest.raises(ValueError, match=r"Kernel 'store' argument 'x': the array is on cuda:0, but the kernel runs on "
                       r"the CPU; move it with \.cpu\(\)"):
        store(torch.zeros(3, device="cuda"), 0, 1.0)


UNSUPPORTED = {
    "numpy_complex64": (lambda: np.zeros(3, dtype=np.complex64), TypeError, "buffer format 'Zf'"),
    "torch_complex64": (lambda: torch.zeros(3, dtype=torch.complex64), TypeError, "DLPack dtype (code 5, 64 bits"),
    "torch_bfloat16": (lambda: torch.zeros(3, dtype=torch.bfloat16), TypeError, "DLPack dtype (code 4, 16 bits"),
    "numpy_15_dims": (lambda: np.zeros((1,) * 15, dtype=np.float32), ValueError, "up to 14 dimensions, but got 15"),
    "torch_15_dims": (lambda: torch.zeros((1,) * 15), ValueError, "up to 14 dimensions, but the DLPack tensor has 15"),
}


@pytest.mark.parametrize("make, exception, fragment", UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_unsupported_arrays_say_what_is_supported(make, exception, fragment):
    array = make()
    with pytest.raises(exception, match=re.escape(fragment)) as info:
        first_to_one(array)
    assert exception is ValueError or "bool, int8-64, uint8-64 and float16/32/64" in str(info.value)


@pytest.mark.parametrize("make", [v[0] for v in UNSUPPORTED.values()], ids=UNSUPPORTED.keys())
def test_unsupported_arrays_name_the_parameter(make):
    with pytest.raises((TypeError, ValueError), match="Kernel 'first_to_one' argument 'x'"):
        first_to_one(make())


def test_eight_dimensions_are_supported():
    x = np.zeros((1, 2, 1, 2, 1, 2, 1, 2), dtype=np.int32)

    @qd.kernel
    def corner(x: qd.types.ndarray(ndim=8)):
        x[0, 1, 0, 1, 0, 1, 0, 1] = 3

    corner(x)
    assert x.sum() == 3 and x[0, 1, 0, 1, 0, 1, 0, 1] == 3


# Read-only arrays.


def test_writing_a_read_only_array_raises_before_launch_and_leaves_it_unchanged():
    writable = np.zeros(3, dtype=np.float32)
    first_to_one(writable)  # compiled writable first: a read-only array must not reuse that specialization
    readonly = np.full(3, 5, dtype=np.float32)
    readonly.setflags(write=False)
    for _ in range(2):
        with pytest.raises(qd.QuadrantsTypeError, match="Kernel 'first_to_one' writes to array 'x', which was passed "
                           "read-only. Pass a writable array instead.") as info:
            first_to_one(readonly)
        assert isinstance(info.value, TypeError)
        assert readonly.tolist() == [5, 5, 5]
    assert writable.tolist() == [1, 0, 0]


def test_reading_read_only_arrays_is_fine():
    readonly = np.arange(4, dtype=np.float32)
    readonly.setflags(write=False)
    assert total(readonly) == 6
    with pytest.raises(ValueError, match="Non contiguous numpy arrays"):  # reversed: refused, as upstream
        total(readonly[::-1])


# Out-of-bounds indexing.


@qd.kernel
def write_range(data: qd.types.ndarray(ndim=1), n: qd.i32):
    for i in range(n):
        data[i] = i


@qd.kernel
def write_at(grid: qd.types.ndarray(ndim=2), i: qd.i32, j: qd.i32):
    grid[i, j] = 1


def test_debug_mode_out_of_bounds_names_kernel_array_index_and_shape():
    qd.init(arch=qd.cpu, debug=True)
    data = np.zeros(4, dtype=np.int32)
    with raises_exactly(IndexError, "Out of bound access: Kernel 'write_range': index (4,) is out of bounds for "
                        "'data' of shape (4,) in dimension 0."):
        write_range(data, 5)
    grid = np.zeros((3, 5), dtype=np.float32)
    with raises_exactly(IndexError, "Out of bound access: Kernel 'write_at': index (1, 5) is out of bounds for "
                        "'grid' of shape (3, 5) in dimension 1."):
        write_at(grid, 1, 5)
    with raises_exactly(IndexError, "Out of bound access: Kernel 'write_at': index (-1, 0) is out of bounds for "
                        "'grid' of shape (3, 5) in dimension 0."):
        write_at(grid, -1, 0)
    assert grid.sum() == 0
    write_at(grid, 2, 4)
    assert grid[2, 4] == 1 and grid.sum() == 1


def test_debug_mode_checks_qd_ndarrays_and_strided_views():
    qd.init(arch=qd.cpu, debug=True)
    with pytest.raises(IndexError, match=re.escape("index (3,) is out of bounds for 'data' of shape (3,)")):
        write_range(qd.ndarray(qd.f32, shape=(3,)), 4)
    base = np.zeros(6, dtype=np.int64)  # a strided view through DLPack: kernels refuse strided numpy views
    with pytest.raises(IndexError, match=re.escape("index (3,) is out of bounds for 'data' of shape (3,)")):
        write_range(qd.from_dlpack(base[::-2]), 4)


def test_release_mode_runs_in_bounds_kernels():
    qd.init(arch=qd.cpu, debug=False)
    data = np.zeros(4, dtype=np.int32)
    write_range(data, 4)
    assert data.tolist() == [0, 1, 2, 3]


# qd.reset() and a new qd.init().


def test_a_freed_qd_ndarray_raises_and_kernels_work_after_a_new_init():
    x = qd.ndarray(qd.f32, shape=(3,))
    write_range(x, 3)
    assert x.to_numpy().tolist() == [0, 1, 2]
    qd.reset()
    with raises_exactly(RuntimeError, "Kernel 'write_range' argument 'data': This quadrants array was freed by "
                        "qd.reset(); create it again after qd.init()."):
        write_range(x, 3)
    qd.init(arch=qd.cpu)
    y = qd.ndarray(qd.f32, shape=(3,))
    write_range(y, 3)
    assert y.to_numpy().tolist() == [0, 1, 2]
    data = np.zeros(2, dtype=np.int32)
    write_range(data, 2)
    assert data.tolist() == [0, 1]


def test_fields_used_by_a_kernel_after_reset_raise_runtime_error():
    counts = qd.field(qd.i32, shape=(3,))

    @qd.kernel
    def bump():
        for i in counts:
            counts[i] += 1

    bump()
    assert counts.to_numpy().tolist() == [1, 1, 1]
    qd.reset()
    for _ in range(2):
        with raises_exactly(RuntimeError, "This quadrants array was freed by qd.reset(); create it again after "
                            "qd.init()."):
            bump()
    qd.init(arch=qd.cpu)
    with pytest.raises(RuntimeError, match="freed by qd.reset"):
        bump()  # the field itself is gone; a new init does not bring it back


def test_integer_scalars_that_do_not_fit_are_refused():
    @qd.kernel
    def store_small(out: qd.types.ndarray(), a: qd.i8, b: qd.u32) -> None:
        out[0] = a
        out[1] = b

    out = np.zeros(2, dtype=np.int64)
    store_small(out, -128, 2**32 - 1)
    assert out.tolist() == [-128, 2**32 - 1]
    with pytest.raises(ValueError, match=r"argument 'a': 300 does not fit in i8 \(-128 to 127\)"):
        store_small(out, 300, 0)
    with pytest.raises(ValueError, match=r"argument 'b': -1 does not fit in u32 \(0 to 4294967295\)"):
        store_small(out, 0, -1)


def test_debug_bounds_errors_name_the_field_by_its_python_name():
    qd.init(arch=qd.cpu, debug=True)
    temperature = qd.field(qd.f32, shape=4)

    @qd.kernel
    def heat(n: qd.i32) -> None:
        for i in range(n):
            temperature[i] = 1.0

    with pytest.raises(IndexError, match=r"Kernel 'heat': index \(4,\) is out of bounds for 'temperature' of shape \(4,\)"):
        heat(5)
