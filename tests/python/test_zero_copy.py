# tests/python/test_zero_copy.py: to_torch/to_numpy(copy=False) lend memory where upstream Quadrants does, and refuse
# (ValueError; copy=None copies instead) where it does (quadrants/data/zero_copy.py).
import numpy as np
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.cpu_only  # host memory lent to numpy and torch (the CPU build): on CUDA nothing is lent


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _refused(container, match="Zero-copy not available"):
    with pytest.raises(ValueError, match=match):
        container.to_torch(copy=False)
    with pytest.raises(ValueError, match=match):
        container.to_numpy(copy=False)


def test_aos_struct_members_are_refused_and_soa_members_shared():
    s = qd.types.struct(a=qd.i32, b=qd.types.vector(3, qd.f32))
    aos = s.field(shape=(4,))  # AoS is the default
    _refused(aos.a, "its cell holds other components")
    _refused(aos.b)
    aos.a.from_numpy(np.arange(4, dtype=np.int32))
    assert aos.a.to_torch(copy=None).tolist() == [0, 1, 2, 3]  # copy=None falls back to a copy
    soa = s.field(shape=(4,), layout=qd.Layout.SOA)
    view = soa.a.to_torch(copy=False)
    view[2] = 9
    assert soa.a[2] == 9
    assert soa.b.to_numpy(copy=False).shape == (4, 3)


def test_upstream_snode_children_of_struct_and_needs_grad_fields():
    s = qd.types.struct(a=qd.i32, b=qd.types.vector(3, qd.f32))
    aos = s.field(shape=(4,))
    assert aos.a.parent() is aos.b.parent()
    assert aos.a.parent()._snode.ptr.get_num_ch() == 4  # a, and b's three entries
    soa = s.field(shape=(4,), layout=qd.Layout.SOA)
    assert soa.a.parent() is not soa.b.parent()
    x = qd.field(qd.f32, shape=(8,), needs_grad=True)
    assert x.parent()._snode.ptr.get_num_ch() == 1  # the gradient sits in a node of its own
    assert x.grad.parent() is not x.parent() and x.grad.shape == (8,)
    view = x.to_torch(copy=False)
    view[3] = 3.0
    assert x[3] == 3.0 and x.grad.to_torch(copy=False).shape == (8,)


def test_soa_vector_fields_components_and_zero_d_scalars_are_refused():
    _refused(qd.Vector.field(3, qd.f32, shape=4, layout=qd.Layout.SOA), "qd.Layout.SOA")
    vec = qd.Vector.field(3, qd.f32, shape=4)
    assert vec.to_torch(copy=False).shape == (4, 3)
    _refused(vec.get_scalar_field(1))
    _refused(qd.field(qd.f32, shape=()), "0-d scalar field")
    assert qd.Vector.field(2, qd.f32, shape=()).to_torch(copy=False).shape == (2,)


@pytest.mark.parametrize("make", [qd.field, qd.ndarray])
def test_dtypes_upstream_does_not_export_are_refused(make):
    half = make(qd.f16, shape=(4,))
    _refused(half, "dtype f16 is not exported")
    assert half.to_torch(copy=None).dtype == torch.float16
    for dtype in (qd.f32, qd.f64, qd.i32, qd.i64, qd.u1):
        assert make(dtype, shape=(4,)).to_numpy(copy=False).shape == (4,)
