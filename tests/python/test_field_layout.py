# tests/python/test_field_layout.py: memory order of fields: qd.field(order=...), qd.Layout.SOA, dense SNode paths.
"""Issue 12: order= and layout=qd.Layout.SOA change where elements live (checked through qd.get_addr and zero-copy
views), never what any access reads or writes (kernels, struct-fors, Python scope, copies, autodiff)."""
import pickle
import warnings

import numpy as np
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


@qd.kernel
def address(f: qd.template(), i: qd.i32, j: qd.i32) -> qd.u64:
    return qd.get_addr(f, [i, j])


def torch_view(f):
    """A torch tensor sharing f's memory (DLPack), or None where this torch cannot reach f's device."""
    on_cpu = f.__dlpack_device__()[0] == 1
    return torch.utils.dlpack.from_dlpack(f.to_dlpack()) if on_cpu or torch.cuda.is_available() else None


def byte_offsets(f, shape):
    """get_addr(f, [i, j]) - get_addr(f, [0, 0]) for every index of a 2-d field."""
    base = address(f, 0, 0)
    return np.array([[address(f, i, j) - base for j in range(shape[1])] for i in range(shape[0])])


def test_order_ji_is_column_major_and_reads_the_same():
    x = qd.field(qd.i32, shape=(3, 5), order="ji")
    assert x.shape == (3, 5) and x.layout == (1, 0)
    i, j = np.indices((3, 5))
    np.testing.assert_array_equal(byte_offsets(x, (3, 5)), (j * 3 + i) * 4)

    @qd.kernel
    def fill():
        for a, b in x:
            x[a, b] = a * 10 + b

    fill()
    expected = i * 10 + j
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert x[2, 4] == 24
    x[1, 3] = -1
    expected[1, 3] = -1
    np.testing.assert_array_equal(x.to_numpy(), expected)
    view = torch_view(x)  # canonical shape, permuted strides, no copy
    if view is not None:
        assert tuple(view.shape) == (3, 5) and view.stride() == (1, 3)
        np.testing.assert_array_equal(view.cpu().numpy(), expected)


def test_struct_for_visits_elements_in_memory_order():
    x = qd.field(qd.i32, shape=(3, 4), order="ji")
    count = qd.field(qd.i32, shape=())

    @qd.kernel
    def number():
        qd.loop_config(serialize=True)
        for i, j in x:  # i, the innermost axis in memory, varies fastest, as upstream's physical loop order
            x[i, j] = qd.atomic_add(count[None], 1)

    number()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(12).reshape(4, 3).T)


def test_order_of_three_dims_matches_upstream_addresses():
    X, Y, Z = 4, 3, 2
    x = qd.field(qd.f32, shape=(X, Y, Z), order="kij")

    @qd.kernel
    def addr3(i: qd.i32, j: qd.i32, k: qd.i32) -> qd.u64:
        return qd.get_addr(x, [i, j, k])

    base = addr3(0, 0, 0)
    for i, j, k in np.ndindex(X, Y, Z):
        assert addr3(i, j, k) - base == (k * X * Y + i * Y + j) * 4
    values = np.arange(X * Y * Z, dtype=np.float32).reshape(X, Y, Z)
    x.from_numpy(values)
    np.testing.assert_array_equal(x.to_numpy(), values)


def test_soa_vector_field_keeps_each_component_contiguous():
    v = qd.Vector.field(3, qd.f32, shape=(4, 2), layout=qd.Layout.SOA)
    for k in range(3):
        component = v.get_scalar_field(k)
        np.testing.assert_array_equal(byte_offsets(component, (4, 2)), np.arange(8).reshape(4, 2) * 4)
        assert address(component, 0, 0) - address(v, 0, 0) == k * 8 * 4
    values = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
    v.from_numpy(values)
    np.testing.assert_array_equal(v.to_numpy(), values)
    np.testing.assert_array_equal(v.get_scalar_field(1).to_numpy(), values[..., 1])
    view = torch_view(v)
    assert view is None or view.stride() == (2, 1, 8)

    @qd.kernel
    def sums(out: qd.types.ndarray()):
        for i, j in v:
            for k in qd.static(range(3)):
                out[k] += v[i, j][k]

    out = np.zeros(3, np.float32)
    sums(out)
    np.testing.assert_allclose(out, values.sum(axis=(0, 1)), rtol=1e-5)


def test_soa_matrix_with_order_and_dynamic_entry_index():
    m = qd.Matrix.field(2, 3, qd.i32, shape=(4, 5), order="ji", layout=qd.Layout.SOA)
    cells = 4 * 5
    base = address(m, 0, 0)
    for r, c in np.ndindex(2, 3):
        entry = m.get_scalar_field(r, c)
        i, j = np.indices((4, 5))
        np.testing.assert_array_equal(byte_offsets(entry, (4, 5)) + address(entry, 0, 0) - base,
                                      ((r * 3 + c) * cells + j * 4 + i) * 4)

    @qd.kernel
    def fill():
        for i, j in m:
            for r in range(2):  # a runtime entry index goes through the element strides too
                for c in range(3):
                    m[i, j][r, c] = i * 100 + j * 10 + r * 3 + c

    fill()
    i, j, r, c = np.indices((4, 5, 2, 3))
    np.testing.assert_array_equal(m.to_numpy(), i * 100 + j * 10 + r * 3 + c)
    assert m[3, 4][1, 2] == 345


def test_fill_copies_and_torch_round_trips():
    soa = qd.Vector.field(2, qd.f64, shape=(3, 4), order="ji", layout=qd.Layout.SOA)
    aos = qd.Vector.field(2, qd.f64, shape=(3, 4))
    soa.fill(1.5)
    np.testing.assert_array_equal(soa.to_numpy(), np.full((3, 4, 2), 1.5))
    soa.fill([1.0, 2.0])
    np.testing.assert_array_equal(soa.to_numpy(), np.broadcast_to([1.0, 2.0], (3, 4, 2)))
    values = np.arange(24, dtype=np.float64).reshape(3, 4, 2)
    aos.from_numpy(values)
    soa.copy_from(aos)
    np.testing.assert_array_equal(soa.to_numpy(), values)
    aos.fill(0)
    aos.copy_from(soa)
    np.testing.assert_array_equal(aos.to_numpy(), values)
    soa.from_torch(torch.from_numpy(values * 2))
    np.testing.assert_array_equal(soa.to_torch().numpy(), values * 2)
    shared = torch_view(soa)
    if shared is not None:
        shared[1, 2, 1] = -7.0  # a zero-copy view writes the field's own memory
        assert soa[1, 2][1] == -7.0


def test_gradients_share_the_layout():
    x = qd.Vector.field(2, qd.f32, shape=(3, 4), order="ji", layout=qd.Layout.SOA, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    assert x.grad.layout == (1, 0)
    np.testing.assert_array_equal(byte_offsets(x.grad.get_scalar_field(1), (3, 4)),
                                  byte_offsets(x.get_scalar_field(1), (3, 4)))
    assert address(x.grad.get_scalar_field(1), 0, 0) - address(x.grad, 0, 0) == 12 * 4

    @qd.kernel
    def compute():
        for i, j in x:
            loss[None] += x[i, j][0] * x[i, j][1] * (i + 1)

    values = np.random.default_rng(1).standard_normal((3, 4, 2)).astype(np.float32)
    x.from_numpy(values)
    with qd.ad.Tape(loss=loss):
        compute()
    scale = np.arange(1, 4, dtype=np.float32)[:, None]
    np.testing.assert_allclose(x.grad.to_numpy()[..., 0], values[..., 1] * scale, rtol=1e-5)
    np.testing.assert_allclose(x.grad.to_numpy()[..., 1], values[..., 0] * scale, rtol=1e-5)


def test_order_with_offset():
    x = qd.field(qd.i32, shape=(2, 3), order="ji", offset=(-1, 5))

    @qd.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 10 + j

    fill()
    assert x[-1, 5] == -5 and x[0, 7] == 7
    np.testing.assert_array_equal(x.to_numpy(), [[-5, -4, -3], [5, 6, 7]])
    assert address(x, 0, 5) - address(x, -1, 5) == 4  # i is the innermost axis


def test_dense_snode_path_decides_the_order():
    column_major = qd.field(qd.f32)
    qd.root.dense(qd.j, 4).dense(qd.i, 3).place(column_major)
    blocked = qd.field(qd.f32)  # an axis split over two nodes is a blocked layout: kept row-major
    qd.root.dense(qd.i, 2).dense(qd.ij, (2, 4)).place(blocked)
    i, j = np.indices((3, 4))
    np.testing.assert_array_equal(byte_offsets(column_major, (3, 4)), (j * 3 + i) * 4)
    np.testing.assert_array_equal(byte_offsets(blocked, (4, 4)), np.arange(16).reshape(4, 4) * 4)
    assert column_major.snode._physical_index_position() == {0: 0, 1: 1}


def test_tensor_field_backend_layout_is_physical():
    t = qd.tensor(qd.f32, shape=(3, 4), backend=qd.Backend.FIELD, layout=(1, 0))
    assert t.layout == (1, 0) and t.shape == (3, 4)
    impl = t._unwrap()
    i, j = np.indices((3, 4))
    np.testing.assert_array_equal(byte_offsets(impl, (3, 4)), (j * 3 + i) * 4)


def test_pickle_keeps_the_layout():
    x = qd.Vector.field(2, qd.i32, shape=(3, 4), order="ji", layout=qd.Layout.SOA)
    x.from_numpy(np.arange(24, dtype=np.int32).reshape(3, 4, 2))
    restored = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(restored.to_numpy(), x.to_numpy())
    np.testing.assert_array_equal(byte_offsets(restored.get_scalar_field(1), (3, 4)),
                                  byte_offsets(x.get_scalar_field(1), (3, 4)))


def test_no_warning_and_upstream_messages_for_bad_orders():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qd.Vector.field(3, qd.f32, shape=(4, 2), order="ji", layout=qd.Layout.SOA)
    with pytest.raises(qd.QuadrantsCompilationError, match="The axes in order must be different"):
        qd.field(qd.f32, shape=(3, 4), order="ii")
    with pytest.raises(qd.QuadrantsCompilationError, match="Invalid axis l"):
        qd.field(qd.f32, shape=(3, 4, 5), order="ijl")
    with pytest.raises(qd.QuadrantsCompilationError, match="dimensionality of shape and order"):
        qd.field(qd.f32, shape=3, order="ij")


def test_get_addr_errors():
    x = qd.field(qd.f32, shape=(2, 2))
    with pytest.raises(RuntimeError, match=r"qd.get_addr\(\) can only be called inside"):
        qd.get_addr(x, [0, 0])

    @qd.kernel
    def of_a_number() -> qd.u64:
        return qd.get_addr(3, [0, 0])

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.get_addr\(\) takes a field as its first argument"):
        of_a_number()
