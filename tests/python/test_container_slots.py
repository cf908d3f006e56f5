# tests/python/test_container_slots.py: the C++ launcher reads a container's core array and a qd.Tensor's wrapped
# container from their __slots__ at fixed offsets (src/bindings/arg_adapters.cpp); what keeps that read right.
import numpy as np
import pytest

import quadrants as qd
from quadrants.data.container import ArrayContainer
from quadrants.data.tensor import Tensor


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


@qd.kernel
def add_into(a: qd.types.ndarray(), b: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


def test_a_subclass_may_not_redefine_the_slots_the_launcher_reads():
    with pytest.raises(TypeError, match="redefines _array"):
        type("Shadow", (ArrayContainer,), {"_array": property(lambda self: None)})
    with pytest.raises(TypeError, match="redefines _impl"):
        type("Shadow", (Tensor,), {"_impl": None})


def test_wrapped_and_bare_ndarrays_of_every_element_kind_reach_the_kernel():
    a = qd.ndarray(qd.f32, 4)
    b = qd.ndarray(qd.f32, 4)
    a.from_numpy(np.arange(4, dtype=np.float32))
    b.from_numpy(np.full(4, 10, np.float32))
    out = qd.ndarray(qd.f32, 4)
    for args in [(a, b, out), (qd.Tensor(a), b, qd.Tensor(out)), (qd.Tensor(a), qd.Tensor(b), out)]:
        out.fill(0)
        add_into(*args)
        np.testing.assert_array_equal(out.to_numpy(), [10, 11, 12, 13])

    @qd.kernel
    def norms(v: qd.types.ndarray(dtype=qd.math.vec2, ndim=1), out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            out[i] = v[i].norm()

    v = qd.Vector.ndarray(2, qd.f32, 3)
    v.from_numpy(np.array([[3, 4], [6, 8], [0, 1]], np.float32))
    res = qd.ndarray(qd.f32, 3)
    norms(qd.Tensor(v), qd.Tensor(res))
    np.testing.assert_allclose(res.to_numpy(), [5, 10, 1])


def test_an_unset_slot_gives_the_containers_own_error_naming_the_argument():
    # A struct field is a container with no single array: its slot stays unset, and the launcher falls back to the
    # attribute protocol, which raises the struct field's explanation, said of the argument.
    s = qd.Struct.field({"a": qd.f32, "b": qd.f32}, shape=4)
    with pytest.raises(AttributeError, match="argument 'b'.*no single array"):
        add_into(qd.ndarray(qd.f32, 4), s, qd.ndarray(qd.f32, 4))


def test_a_freed_ndarray_is_refused_after_reset_naming_the_argument():
    a = qd.ndarray(qd.f32, 4)
    add_into(a, a, a)
    qd.reset()
    qd.init(arch=qd.cpu)
    with pytest.raises(RuntimeError, match=r"argument 'a'.*freed by qd.reset\(\)"):
        add_into(a, qd.ndarray(qd.f32, 4), qd.ndarray(qd.f32, 4))
    with pytest.raises(RuntimeError, match=r"argument 'b'.*freed by qd.reset\(\)"):
        add_into(qd.Tensor(qd.ndarray(qd.f32, 4)), qd.Tensor(a), qd.ndarray(qd.f32, 4))
