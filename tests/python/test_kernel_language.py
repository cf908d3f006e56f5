# tests/python/test_kernel_language.py: every kernel-language feature of issue 3, compiled and run on the CPU.
import math

import numpy as np
import pytest
import torch

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.init(arch=qd.cpu)  # tests here init with default_fp=f64 or debug=True: the next file must not inherit them


def test_scalar_params_and_return_value():
    @qd.kernel
    def affine(a: qd.f32, b: qd.i32) -> qd.f32:
        return a * 2 + b

    assert affine(1.5, 4) == 7.0

    @qd.kernel
    def total(x: qd.types.ndarray()) -> qd.f64:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    x = np.arange(1000, dtype=np.float64)
    assert total(x) == pytest.approx(x.sum())


def test_dtype_and_ndim_specialize_per_call():
    @qd.kernel
    def fill(x: qd.types.ndarray()):
        for I in qd.grouped(x):  # one index vector whatever the ndim (a bare `for I in x` needs x 1-d, as upstream)
            x[I] = 7

    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        for shape in ((5,), (3, 4), (2, 3, 2)):
            a = np.zeros(shape, dtype=dtype)
            fill(a)
            assert (a == 7).all(), (dtype, shape)


def test_ranges_ndrange_and_struct_for():
    @qd.kernel
    def k(out: qd.types.ndarray(ndim=2), a: qd.i32, b: qd.i32):
        for i, j in out:
            out[i, j] = 0
        for i in range(a, b):
            out[i, 0] = i
        for i, j in qd.ndrange((1, 3), (1, 4)):
            out[i, j] = 10 * i + j

    out = np.full((4, 4), -1, dtype=np.int32)
    k(out, 1, 4)
    expected = np.zeros((4, 4), dtype=np.int32)
    expected[1:4, 0] = [1, 2, 3]
    for i in range(1, 3):
        for j in range(1, 4):
            expected[i, j] = 10 * i + j
    np.testing.assert_array_equal(out, expected)


def test_control_flow_if_elif_else_while_break_continue():
    @qd.kernel
    def collatz_steps(n: qd.types.ndarray(), steps: qd.types.ndarray()):
        for i in n:
            v = n[i]
            count = 0
            while True:
                if v == 1:
                    break
                elif v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                count += 1
                if count > 1000:
                    break
                continue
            steps[i] = count

    n = np.arange(1, 30, dtype=np.int64)
    steps = np.zeros_like(n)
    collatz_steps(n, steps)

    def reference(v):
        count = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        return count

    assert steps.tolist() == [reference(v) for v in n.tolist()]


def test_python_semantics_of_division_modulo_and_power():
    @qd.kernel
    def k(a: qd.types.ndarray(), b: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in a:
            out[i, 0] = a[i] // b[i]
            out[i, 1] = a[i] % b[i]
            out[i, 2] = a[i] / b[i]
            out[i, 3] = a[i] ** 2

    a = np.array([7, -7, 7, -7], dtype=np.int32)
    b = np.array([2, 2, -2, -2], dtype=np.int32)
    out = np.zeros((4, 4), dtype=np.float64)
    k(a, b, out)
    np.testing.assert_allclose(out[:, 0], a // b)
    np.testing.assert_allclose(out[:, 1], a % b)
    np.testing.assert_allclose(out[:, 2], a / b, rtol=1e-6)
    np.testing.assert_allclose(out[:, 3], a**2)


def test_comparisons_logic_ternary_and_casts():
    @qd.kernel
    def k(x: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in x:
            v = x[i]
            out[i, 0] = 0.0 < v <= 2.0
            out[i, 1] = v > 1 and not v > 2 or v == -1
            out[i, 2] = v if v > 0 else -v
            out[i, 3] = qd.cast(v, qd.i32) + qd.f32(qd.i32(v * 2)) + int(v)

    x = np.array([-1.0, 0.5, 1.5, 2.5], dtype=np.float32)
    out = np.zeros((4, 4), dtype=np.float32)
    k(x, out)
    np.testing.assert_array_equal(out[:, 0], [0, 1, 1, 0])
    np.testing.assert_array_equal(out[:, 1], [1, 0, 1, 0])
    np.testing.assert_array_equal(out[:, 2], np.abs(x))
    np.testing.assert_array_equal(out[:, 3], np.trunc(x) + np.trunc(x * 2) + np.trunc(x))


def test_math_functions_match_numpy():
    @qd.kernel
    def k(x: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in x:
            v = x[i]
            out[i, 0] = qd.sqrt(v)
            out[i, 1] = qd.sin(v) + qd.cos(v) + qd.tan(v)
            out[i, 2] = qd.exp(v) + qd.log(v)
            out[i, 3] = qd.abs(-v) + qd.floor(v) + qd.ceil(v)
            out[i, 4] = qd.min(v, 1.0) + qd.max(v, 1.0, 2.0) + qd.atan2(v, 2.0)
            out[i, 5] = qd.math.clamp(v, 0.5, 1.0) + qd.math.fract(v) + qd.math.sign(v - 1.0)

    x = np.array([0.25, 1.0, 2.5], dtype=np.float64)
    out = np.zeros((3, 6))
    k(x, out)
    np.testing.assert_allclose(out[:, 0], np.sqrt(x))
    np.testing.assert_allclose(out[:, 1], np.sin(x) + np.cos(x) + np.tan(x))
    np.testing.assert_allclose(out[:, 2], np.exp(x) + np.log(x))
    np.testing.assert_allclose(out[:, 3], x + np.floor(x) + np.ceil(x))
    np.testing.assert_allclose(out[:, 4], np.minimum(x, 1) + np.maximum(x, 2) + np.arctan2(x, 2))
    np.testing.assert_allclose(out[:, 5], np.clip(x, 0.5, 1) + (x - np.floor(x)) + np.sign(x - 1))


def test_shape_and_static_constructs():
    weights = (1, 10, 100)

    @qd.kernel
    def k(x: qd.types.ndarray(ndim=2), out: qd.types.ndarray()):
        for i in range(x.shape[0]):
            s = 0
            for j in qd.static(range(3)):
                if qd.static(j != 1):
                    s += x[i, j] * weights[j]
            out[i] = s + x.shape[1] * 1000

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros(2, dtype=np.int32)
    k(x, out)
    assert out.tolist() == [x[0, 0] + 100 * x[0, 2] + 3000, x[1, 0] + 100 * x[1, 2] + 3000]


def test_funcs_with_arguments_return_values_and_early_return():
    @qd.func
    def sqr(v):
        return v * v

    @qd.func
    def classify(v) -> qd.i32:
        if v < 0:
            return -1
        if v == 0:
            return 0
        return 1

    @qd.kernel
    def k(x: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in x:
            out[i, 0] = sqr(x[i]) + sqr(2)
            out[i, 1] = classify(x[i])

    x = np.array([-3, 0, 5], dtype=np.int32)
    out = np.zeros((3, 2), dtype=np.int32)
    k(x, out)
    assert out.tolist() == [[13, -1], [4, 0], [29, 1]]


def test_vectors_and_matrices():
    @qd.kernel
    def k(p: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), out: qd.types.ndarray(dtype=qd.math.vec3, ndim=1),
          lengths: qd.types.ndarray()):
        for i in p:
            v = p[i]
            m = qd.Matrix([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
            r = m @ v
            c = v.cross(qd.Vector([0.0, 0.0, 1.0]))
            out[i] = r + c * 2 - m.transpose() @ r
            lengths[i] = v.norm() + v.dot(r) + r[2]

    p = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    out = np.zeros_like(p)
    lengths = np.zeros(5, dtype=np.float32)
    k(p, out, lengths)
    m = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float32)
    r = p @ m.T
    c = np.cross(p, [0, 0, 1])
    np.testing.assert_allclose(out, r + 2 * c - r @ m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lengths, np.linalg.norm(p, axis=1) + (p * r).sum(1) + r[:, 2], rtol=1e-5, atol=1e-6)


def test_atomics_return_the_old_value():
    @qd.kernel
    def k(x: qd.types.ndarray(), counter: qd.types.ndarray(), slots: qd.types.ndarray()):
        for i in x:
            counter[0] += 1
            slot = qd.atomic_add(counter[1], 1)
            slots[slot] = 1
            qd.atomic_max(counter[2], x[i])
            qd.atomic_min(counter[3], x[i])
            qd.atomic_or(counter[4], 1 << (i % 8))

    n = 10000
    x = np.arange(n, dtype=np.int32)
    counter = np.array([0, 0, -1, n, 0], dtype=np.int32)
    slots = np.zeros(n, dtype=np.int32)
    k(x, counter, slots)
    assert counter.tolist() == [n, n, n - 1, 0, 255]
    assert slots.sum() == n


def test_loop_config_serialize_keeps_order():
    @qd.kernel
    def prefix_sum(x: qd.types.ndarray()):
        qd.loop_config(serialize=True)
        for i in range(1, x.shape[0]):
            x[i] += x[i - 1]

    x = np.ones(1000, dtype=np.int64)
    prefix_sum(x)
    assert x.tolist() == list(range(1, 1001))


def test_template_arguments_and_fields():
    field = qd.field(qd.f32, shape=(4, 4))

    @qd.kernel
    def fill(f: qd.template(), value: qd.f32, scale: qd.template()):
        for i, j in f:
            f[i, j] = value * scale + i

    fill(field, 2.0, 3)
    expected = 6.0 + np.arange(4, dtype=np.float32)[:, None] * np.ones((1, 4), np.float32)
    np.testing.assert_array_equal(field.to_numpy(), expected)
    fill(field, 1.0, 10)
    np.testing.assert_array_equal(field.to_numpy(), expected + 4.0)


def test_fields_as_globals_and_vector_fields():
    temperature = qd.field(qd.f32, shape=(8,))
    velocity = qd.Vector.field(2, qd.f32, shape=(8,))

    @qd.kernel
    def step(dt: qd.f32):
        for i in temperature:
            temperature[i] = i * dt
            velocity[i] = qd.Vector([i, -i]) * dt

    step(0.5)
    np.testing.assert_array_equal(temperature.to_numpy(), np.arange(8) * 0.5)
    np.testing.assert_array_equal(velocity.to_numpy()[:, 1], -np.arange(8) * 0.5)


def test_numpy_torch_noncontiguous_and_qd_ndarray_arguments():
    @qd.kernel
    def double(x: qd.types.ndarray()):
        for i in x:
            x[i] *= 2

    base = np.arange(10, dtype=np.float32)
    view = base[::-2]
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):  # as upstream
        double(view)
    assert base.tolist() == list(range(10))
    double(qd.from_dlpack(view))  # the same view through DLPack is read through its strides
    assert base.tolist() == [0, 2, 2, 6, 4, 10, 6, 14, 8, 18]
    t = torch.arange(4, dtype=torch.float32)
    double(t)
    assert t.tolist() == [0, 2, 4, 6]
    a = qd.ndarray(qd.f32, shape=(3,))
    a.from_numpy(np.array([1, 2, 3], dtype=np.float32))
    double(a)
    assert a.to_numpy().tolist() == [2, 4, 6]


def test_keyword_arguments_of_template_kernels():
    @qd.kernel
    def k(x: qd.types.ndarray(), value: qd.i32, offset: qd.template()):
        x[0] = value + offset

    x = np.zeros(1, dtype=np.int32)
    k(value=5, x=x, offset=1)
    assert x[0] == 6


def test_new_init_recompiles_with_new_defaults():
    @qd.kernel
    def third() -> qd.f64:
        x = 1 / 3  # a local takes default_fp at its first assignment
        return x

    assert third() == pytest.approx(1 / 3, rel=1e-6)
    assert third() != 1 / 3  # default_fp f32
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    assert third() == 1 / 3


def test_errors_from_passes_and_arguments():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        x[0] = 1

    with pytest.raises(TypeError, match="'x'"):
        k(np.zeros(3, dtype=np.int32))
    readonly = np.zeros(3, dtype=np.float32)
    readonly.setflags(write=False)
    with pytest.raises(qd.QuadrantsTypeError, match="array 'x', which was passed read-only") as info:
        k(readonly)
    assert str(info.value).splitlines()[1].strip() == "x[0] = 1"


def test_type_error_found_by_a_pass_shows_the_source_line():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in x:
            x[i] = x[i] & 3

    with pytest.raises(qd.QuadrantsTypeError) as info:
        k(np.zeros(3, dtype=np.float32))
    lines = str(info.value).splitlines()
    assert lines[0].startswith(f"{__file__}:")
    assert "unsupported operand type(s) for '&': f32 and i32; operator 'bit_and' needs integer operands" in lines[0]
    assert lines[1].strip() == "x[i] = x[i] & 3"
    assert lines[2].index("^") == lines[1].index("x")


def test_debug_mode_checks_bounds():
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.i32):
        for i in range(n):
            x[i] = 1

    x = np.zeros(4, dtype=np.int32)
    k(x, 4)
    with pytest.raises(IndexError, match="k"):
        k(x, 5)


def test_math_constants_fold():
    @qd.kernel
    def k() -> qd.f64:
        return math.pi * 2

    qd.init(arch=qd.cpu, default_fp=qd.f64)
    assert k() == pytest.approx(2 * math.pi)
