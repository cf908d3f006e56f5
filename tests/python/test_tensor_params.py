# Kernel parameters, dataclass members and func parameters annotated qd.Tensor (lang/tensor_params.py):
# an ndarray or external array is a runtime array, a field a template value, and qd.Tensor wrappers are
# looked through wherever a container is taken.
import dataclasses

import numpy as np
import pytest

import quadrants as qd


@dataclasses.dataclass(frozen=True)
class Info:
    x: qd.Tensor
    scale: qd.f32


@dataclasses.dataclass(frozen=True)
class Outer:
    info: Info
    y: qd.Tensor


@qd.kernel
def shift(info: Info, y: qd.Tensor):
    for i in range(info.x.shape[0]):
        y[i] = info.x[i] * info.scale + 1


def _entries(kernel):
    return len(kernel._qd_kernel._instances)


def _source(n=4):
    a = qd.tensor(qd.f32, n)
    a.from_numpy(np.arange(n, dtype=np.float32))
    return a


def test_dataclass_member_and_parameter_take_ndarrays_fields_and_numpy():
    a = _source()
    expected = np.arange(4, dtype=np.float32) * 2 + 1
    f = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)
    shift(Info(a, 2.0), f)
    np.testing.assert_array_equal(f.to_numpy(), expected)
    b = qd.tensor(qd.f32, 4)
    shift(Info(a, 2.0), b)
    np.testing.assert_array_equal(b.to_numpy(), expected)
    c = np.zeros(4, np.float32)
    shift(Info(a, 2.0), c)
    np.testing.assert_array_equal(c, expected)
    g = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)
    g.from_numpy(np.full(4, 5, np.float32))
    shift(Info(g, 3.0), c)
    np.testing.assert_array_equal(c, np.full(4, 16, np.float32))


def test_arrays_share_one_compiled_entry_fields_select_their_own():
    @qd.kernel
    def copy(src: qd.Tensor, dst: qd.Tensor):
        for i in range(src.shape[0]):
            dst[i] = src[i]

    for _ in range(3):  # fresh ndarrays and numpy arrays of one dtype and rank: one entry
        dst = np.zeros(4, np.float32)
        copy(_source(), dst)
        np.testing.assert_array_equal(dst, np.arange(4, dtype=np.float32))
    assert _entries(copy) == 1
    fields = [qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD) for _ in range(2)]
    for k, f in enumerate(fields):
        f.from_numpy(np.full(4, k + 7, np.float32))
        dst = np.zeros(4, np.float32)
        copy(f, dst)
        np.testing.assert_array_equal(dst, np.full(4, k + 7, np.float32))
    assert _entries(copy) == 3


def test_an_array_of_another_dtype_is_a_new_specialization_not_a_wrong_read():
    @qd.kernel
    def total(x: qd.Tensor) -> qd.f64:
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i]
        return s

    assert total(np.array([1.5, 2.5], np.float32)) == 4.0
    assert total(np.array([1.25, 2.5], np.float64)) == 3.75
    assert total(np.array([3, 4, 5], np.int32)) == 12.0


def test_nested_dataclass_members():
    @qd.kernel
    def fill(o: Outer):
        for i in range(o.y.shape[0]):
            o.y[i] = o.info.x[i] + o.info.scale

    y = qd.tensor(qd.f32, 4)
    fill(Outer(Info(_source(), 0.5), y))
    np.testing.assert_array_equal(y.to_numpy(), np.arange(4, dtype=np.float32) + 0.5)
    yf = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)
    fill(Outer(Info(_source(), 1.5), yf))
    np.testing.assert_array_equal(yf.to_numpy(), np.arange(4, dtype=np.float32) + 1.5)


def test_func_parameter_takes_either_container():
    @qd.func
    def triple(z: qd.Tensor, i):
        return z[i] * 3

    @qd.kernel
    def run(y: qd.Tensor, out: qd.types.ndarray()):
        for i in range(y.shape[0]):
            out[i] = triple(y, i)

    out = np.zeros(4, np.float32)
    run(_source(), out)
    np.testing.assert_array_equal(out, np.arange(4, dtype=np.float32) * 3)
    f = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)
    f.from_numpy(np.full(4, 2, np.float32))
    run(f, out)
    np.testing.assert_array_equal(out, np.full(4, 6, np.float32))


def test_wrappers_pass_for_ndarray_and_template_parameters_and_as_globals():
    wrapped_field = qd.tensor(qd.i32, 3, backend=qd.Backend.FIELD)
    wrapped_field.from_numpy(np.array([4, 5, 6], np.int32))

    @qd.kernel
    def add(src: qd.types.ndarray(), dst: qd.template()):
        for i in range(3):
            dst[i] += src[i] + wrapped_field[i]

    src = qd.tensor(qd.i32, 3)
    src.from_numpy(np.array([1, 2, 3], np.int32))
    dst = qd.tensor(qd.i32, 3, backend=qd.Backend.FIELD)
    add(src, dst)
    np.testing.assert_array_equal(dst.to_numpy(), [5, 7, 9])


def test_vector_tensors_of_either_backend():
    @qd.kernel
    def norms(v: qd.Tensor, out: qd.Tensor):
        for i in range(v.shape[0]):
            out[i] = v[i].norm()

    data = np.array([[3, 4, 0], [0, 0, 2]], np.float32)
    for backend in (qd.Backend.NDARRAY, qd.Backend.FIELD):
        v = qd.Vector.tensor(3, qd.f32, 2, backend=backend)
        v.from_numpy(data)
        out = qd.tensor(qd.f32, 2, backend=backend)
        norms(v, out)
        np.testing.assert_allclose(out.to_numpy(), [5, 2])


def test_data_oriented_members_that_are_wrappers():
    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.a = _source()
            self.f = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)

        @qd.kernel
        def step(self):
            for i in range(4):
                self.f[i] = self.a[i] * 10

    sim = Sim()
    sim.step()
    np.testing.assert_array_equal(sim.f.to_numpy(), np.arange(4, dtype=np.float32) * 10)
    sim.a = qd.tensor(qd.f32, 4)  # a new ndarray is read on the next call
    sim.a.from_numpy(np.ones(4, np.float32))
    sim.step()
    np.testing.assert_array_equal(sim.f.to_numpy(), np.full(4, 10, np.float32))


def test_numbers_given_to_a_tensor_parameter_are_compile_time_values():
    @qd.kernel
    def put(n: qd.Tensor, out: qd.types.ndarray()):
        out[0] = qd.static(n) * 2

    out = np.zeros(1, np.int32)
    put(21, out)
    assert out[0] == 42


def test_dataclass_with_a_tensor_member_must_be_given_its_dataclass():
    with pytest.raises(TypeError, match="must be a Info instance"):
        shift(object(), np.zeros(4, np.float32))


@dataclasses.dataclass(frozen=True)
class Fields:
    src: qd.Tensor
    dst: qd.Tensor


@qd.kernel
def copy_fields(f: Fields):
    for i in range(f.src.shape[0]):
        f.dst[i] = f.src[i]


def _field(values):
    f = qd.tensor(qd.f32, len(values), backend=qd.Backend.FIELD)
    f.from_numpy(np.asarray(values, np.float32))
    return f


def test_a_frozen_dataclass_keeps_its_key_and_copies_never_reuse_it():
    import copy

    a = Fields(_field([1, 2]), _field([0, 0]))
    copy_fields(a)
    copy_fields(a)  # the key kept on the instance
    np.testing.assert_array_equal(a.dst.to_numpy(), [1, 2])
    b = copy.copy(a)  # the kept key is copied along with the instance's __dict__ ...
    object.__setattr__(b, "src", _field([7, 8]))  # ... so it must not select a's entry for b's new fields
    object.__setattr__(b, "dst", _field([0, 0]))
    copy_fields(b)
    np.testing.assert_array_equal(b.dst.to_numpy(), [7, 8])
    np.testing.assert_array_equal(a.dst.to_numpy(), [1, 2])
    c = dataclasses.replace(a, dst=_field([0, 0]))
    copy_fields(c)
    np.testing.assert_array_equal(c.dst.to_numpy(), [1, 2])


def test_mutable_and_slotted_dataclasses_are_keyed_on_every_call():
    @dataclasses.dataclass
    class Mutable:
        src: qd.Tensor
        dst: qd.Tensor

    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        src: qd.Tensor
        dst: qd.Tensor

    @qd.kernel
    def run(m: Mutable):
        for i in range(m.src.shape[0]):
            m.dst[i] = m.src[i] * 2

    @qd.kernel
    def run_slotted(m: Slotted):
        for i in range(m.src.shape[0]):
            m.dst[i] = m.src[i] * 3

    m = Mutable(_field([1, 2]), _field([0, 0]))
    run(m)
    m.src = _field([5, 6])  # reassigned member: a different field, a different entry
    run(m)
    np.testing.assert_array_equal(m.dst.to_numpy(), [10, 12])
    s = Slotted(_field([1, 2]), _field([0, 0]))
    run_slotted(s)
    run_slotted(Slotted(_field([4, 5]), s.dst))
    np.testing.assert_array_equal(s.dst.to_numpy(), [12, 15])
