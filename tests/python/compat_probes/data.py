# tests/python/compat_probes/data.py: probes of the compatibility rows about arrays, fields, layouts and randomness.
import importlib.util

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from compat_probes.util import same


@qd.kernel
def _add_one(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in a:
        a[i] += 1.0


class _DLPackProducer:
    """Any object with __dlpack__ and __dlpack_device__, as DLPack producers other than numpy and torch are."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@probe("numpy, torch, CuPy arrays and DLPack producers as ndarray arguments, zero-copy")
def zero_copy_arrays():
    a = np.zeros(4, np.float32)
    _add_one(a)
    _add_one(_DLPackProducer(a))
    assert a.tolist() == [2.0] * 4  # both writes landed in the numpy array itself
    import torch  # a test dependency here (setup installs torch==2.13.0)

    t = torch.zeros(4)
    _add_one(t)
    assert t.tolist() == [1.0] * 4
    for strided, message in ((np.zeros(8, np.float32)[::2], "Non contiguous numpy arrays are not supported"),
                             (torch.zeros(8)[::2], "Non contiguous tensors are not supported")):
        try:
            _add_one(strided)
        except ValueError as e:  # upstream's refusal
            assert message in str(e), e
        else:
            raise AssertionError("a strided view was accepted as a kernel argument")
    if importlib.util.find_spec("cupy") is not None and qd.cfg.arch is qd.cuda:  # CuPy needs a CUDA device
        import cupy

        c = cupy.zeros(4, cupy.float32)
        _add_one(c)
        assert c.get().tolist() == [1.0] * 4


@probe("`qd.field`, `qd.ndarray`, `qd.root.dense/pointer/bitmasked/dynamic`, `qd.append`, activation")
def fields_and_snodes():
    dense = qd.field(qd.i32, shape=4)
    nd = qd.ndarray(qd.i32, shape=4)
    sparse = qd.field(qd.i32)
    qd.root.pointer(qd.i, 4).dense(qd.i, 2).place(sparse)
    masked = qd.field(qd.i32)
    qd.root.bitmasked(qd.i, 8).place(masked)
    lists = qd.field(qd.i32)
    qd.root.dense(qd.i, 2).dynamic(qd.j, 16, chunk_size=4).place(lists)

    @qd.kernel
    def fill(n: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:
        for i in range(4):
            dense[i] = i
            n[i] = 2 * i
        sparse[5] = 7  # activates the pointer cell of 4..5
        masked[3] = 1
        masked[6] = 1
        for k in range(5):
            qd.append(lists.parent(), 1, k * k)
        active = 0
        for i in sparse:
            active += 1
        for i in masked:
            active += 10
        return active + 100 * qd.length(lists.parent(), 1) + 1000 * qd.is_active(masked.snode.parent(), [3])

    assert fill(nd) == 2 + 20 + 500 + 1000
    assert dense.to_numpy().tolist() == [0, 1, 2, 3] and nd.to_numpy().tolist() == [0, 2, 4, 6]
    assert [lists[1, k] for k in range(5)] == [0, 1, 4, 9, 16] and sparse[5] == 7 and sparse[0] == 0

    @qd.kernel
    def drop() -> qd.i32:
        qd.deactivate(masked.snode.parent(), [3])
        return qd.is_active(masked.snode.parent(), [3]) + 10 * qd.is_active(masked.snode.parent(), [6])

    assert drop() == 10 and masked[3] == 0

    @qd.kernel
    def add_one():
        qd.no_activate(masked.snode.parent())
        for i in range(8):
            masked[i] += 1  # only the active cell (6) changes

    add_one()
    assert masked.to_numpy().tolist() == [0, 0, 0, 0, 0, 0, 2, 0]
    pair = qd.types.struct(a=qd.i32, b=qd.f32)
    pairs = pair.field()
    qd.root.dynamic(qd.i, 8, chunk_size=4).place(pairs)

    @qd.kernel
    def struct_list() -> qd.i32:
        pairs.append(pair(a=1, b=0.5))
        pairs.append(pair(a=2, b=1.5))
        n = pairs.length()
        pairs.deactivate()
        return n * 10 + pairs.length()

    assert struct_list() == 20
    qd.deactivate_all_snodes()
    assert sparse[5] == 0 and masked[6] == 0 and lists[1, 0] == 0
    # The note: zero extents are refused by qd.field() and qd.ndarray(), not by qd.Vector.ndarray(), as upstream.
    with pytest.raises(qd.QuadrantsRuntimeError, match="Every dimension of a Quadrants field should be positive"):
        qd.field(qd.i32, shape=(2, 0))
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"\(0,\) is not a valid shape for ndarray"):
        qd.ndarray(qd.i32, shape=0)
    assert qd.Vector.ndarray(3, qd.f32, shape=0).shape == (0,)


@probe("`qd.ScalarNdarray(dtype, shape)`, `qd.VectorNdarray(n, dtype, shape)`, `qd.MatrixNdarray(n, m, dtype, shape)`;"
       " `element_type` (`.element_type()`, `.shape()`), `get_type()`, `has_grad()`, `layout`")
def ndarray_classes():
    s = qd.ScalarNdarray(qd.f32, (3,))
    v = qd.VectorNdarray(3, qd.f32, (2,))
    m = qd.MatrixNdarray(2, 3, qd.i32, (4,))
    assert isinstance(qd.ndarray(qd.f32, 3), qd.ScalarNdarray)
    assert isinstance(qd.Vector.ndarray(3, qd.f32, 2), qd.VectorNdarray)
    assert isinstance(qd.Matrix.ndarray(2, 3, qd.i32, 4), qd.MatrixNdarray)
    assert (s.shape, v.shape, m.shape) == ((3,), (2,), (4,))
    assert list(v.element_type.shape()) == [3] and list(m.element_type.shape()) == [2, 3] and v.m == 1
    assert m.element_type.element_type() == qd.i32
    assert s.get_type() is not None and not s.has_grad()
    assert qd.ndarray(qd.f32, 3, needs_grad=True).has_grad()
    assert s.layout is not None or s.layout is None  # present, as upstream's attribute
    v.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    same(v.to_numpy(), np.arange(6).reshape(2, 3))


@qd.kernel
def _address(f: qd.template(), i: qd.i32, j: qd.i32) -> qd.u64:
    return qd.get_addr(f, [i, j])


@probe("`qd.field(..., order=...)`, `layout=qd.Layout.SOA`, column-major dense paths "
       "(`qd.root.dense(qd.j, n).dense(qd.i, m)`)")
def field_layouts():
    ordered = qd.field(qd.i32, shape=(3, 5), order="ji")
    path = qd.field(qd.i32)
    qd.root.dense(qd.j, 5).dense(qd.i, 3).place(path)
    soa = qd.Vector.field(3, qd.f32, shape=(4, 2), layout=qd.Layout.SOA)
    for f in (ordered, path):  # column-major: f[1, 0] is next to f[0, 0], f[0, 1] three elements on
        assert (_address(f, 1, 0) - _address(f, 0, 0), _address(f, 0, 1) - _address(f, 0, 0)) == (4, 12)
    first, second = soa.get_scalar_field(0), soa.get_scalar_field(1)
    assert _address(second, 0, 0) - _address(first, 0, 0) == 8 * 4  # each component its own array
    values = np.arange(15, dtype=np.int32).reshape(3, 5)
    ordered.from_numpy(values)
    assert (ordered.to_numpy() == values).all()  # where it lives changes; what it reads does not


@probe("`qd.tensor(..., layout=...)` (both backends), an ndarray's `_qd_layout` tag and `_physical_shape`; "
       "`quadrants._tensor._with_layout`")
def tensor_layouts():
    from quadrants._tensor import _with_layout

    @qd.kernel
    def fill(t: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i, j in t:
            t[i, j] = i * 100 + j

    t = qd.tensor(qd.i32, shape=(3, 4), layout=(1, 0))
    x = t._unwrap()
    assert x._physical_shape == (4, 3) and x._qd_layout == (1, 0)
    fill(t)
    expected = np.fromfunction(lambda i, j: i * 100 + j, (3, 4), dtype=np.int32)
    assert (t.to_numpy() == expected).all()
    f = qd.tensor(qd.i32, shape=(3, 4), backend=qd.Backend.FIELD, layout=(1, 0))
    assert f.layout == (1, 0) and _address(f._unwrap(), 1, 0) - _address(f._unwrap(), 0, 0) == 4
    y = _with_layout(qd.ndarray(qd.i32, (4, 3)), (1, 0))
    assert y.shape == (3, 4) and y._physical_shape == (4, 3)


@probe("`qd.get_addr(f, [i, j])`")
def get_addr():
    f = qd.field(qd.f64, shape=(4, 6))
    assert _address(f, 1, 2) - _address(f, 0, 0) == (6 + 2) * 8

    @qd.kernel
    def of_place_snode(i: qd.i32) -> qd.i64:
        return qd.get_addr(f.snode, [i, 1]) - qd.get_addr(f, [i, 0])

    assert of_place_snode(2) == 8


@probe("`field.get_scalar_field(i, j)`: a component as a scalar field; components placed one by one")
def scalar_field_components():
    m = qd.Matrix.field(2, 3, qd.i32, shape=2)
    c = m.get_scalar_field(1, 2)

    @qd.kernel
    def bump():
        for i in c:
            c[i] += 5

    bump()
    assert m[1][1, 2] == 5 and m[1][0, 0] == 0
    v = qd.Vector.field(2, qd.i32)
    a, b = v.get_scalar_field(0), v.get_scalar_field(1)
    qd.root.dense(qd.i, 4).place(a)
    qd.root.dense(qd.i, 4).place(b)
    v[2] = [3, 4]
    assert (a[2], b[2], v.shape) == (3, 4, (4,))


@qd.data_oriented
class _Energy:
    def __init__(self, n):
        self.x = qd.field(qd.f32, shape=n, needs_grad=True)
        self.total = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def accumulate(self, k: qd.f32):
        for i in self.x:
            self.total[None] += k * self.x[i] ** 2


@probe("`@qd.data_oriented` classes with kernel methods")
def data_oriented():
    a, b = _Energy(3), _Energy(3)
    a.x.from_numpy(np.array([1, 2, 3], np.float32))
    a.accumulate(2.0)
    assert a.total[None] == pytest.approx(28.0) and b.total[None] == 0.0
    a.total.grad[None] = 1.0
    a.accumulate.grad(2.0)  # the note: obj.kernel.grad() runs the adjoint for obj
    same(a.x.grad.to_numpy(), [4, 8, 12])
    same(b.x.grad.to_numpy(), [0, 0, 0])


@probe("`qd.random`")
def random_numbers():
    @qd.kernel
    def draw(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in out:
            out[i] = qd.random()

    first, again = np.zeros(10000, np.float32), np.zeros(10000, np.float32)
    qd.init(arch=qd.cpu, random_seed=5)
    draw(first)
    qd.init(arch=qd.cpu, random_seed=5)
    draw(again)
    assert (first == again).all()  # a seed repeats its numbers
    assert 0.0 <= first.min() and first.max() < 1.0 and abs(first.mean() - 0.5) < 0.02
    draw(again)
    assert not (first == again).all()  # each launch draws new ones
