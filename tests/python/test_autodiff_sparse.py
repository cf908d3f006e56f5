# tests/python/test_autodiff_sparse.py: reverse and forward autodiff of fields under pointer, bitmasked, dynamic SNodes.
"""A field's .grad (and .dual) is placed beside it, so it lives in the same sparse cells (upstream's rule).
kernel.grad() and qd.ad.Tape accumulate into those cells; a gradient written to an element of an inactive
cell activates it (as upstream's adjoint does), and a struct-for's adjoint visits the cells the primal left
active. Gradients are checked against central differences in float64 (finite_differences.py), on the
CPU and, under QD_TEST_ARCH=cuda, on CUDA (conftest.py)."""
import numpy as np
import pytest

import quadrants as qd
from finite_differences import central_difference

LAYOUTS = ["pointer", "bitmasked", "pointer_of_pointer", "dense_pointer"]
N, BLOCK = 8, 4


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64)  # conftest.py turns qd.cpu into CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


def _block(layout):
    """A node of N * BLOCK elements along i whose cells of BLOCK elements are sparse."""
    if layout == "pointer_of_pointer":
        return qd.root.pointer(qd.i, N // 2).pointer(qd.i, 2).dense(qd.i, BLOCK)
    if layout == "dense_pointer":
        return qd.root.dense(qd.i, N // 2).pointer(qd.i, 2).dense(qd.i, BLOCK)
    return getattr(qd.root, layout)(qd.i, N).dense(qd.i, BLOCK)


def _fill_cells(x, cells, rng):
    """Writes random values into every element of the given cells (which activates them)."""
    for c in cells:
        for k in range(BLOCK):
            x[c * BLOCK + k] = rng.uniform(0.5, 1.5)


def _active_cells(x):
    active = qd.field(qd.i32, shape=N)

    @qd.kernel
    def mark():
        for i in x:
            active[i // BLOCK] = 1

    mark()
    return list(np.nonzero(active.to_numpy())[0])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_struct_for_gradient_matches_differences(layout):
    rng = np.random.default_rng(0)
    x = qd.field(qd.f64, needs_grad=True)
    y = qd.field(qd.f64, shape=(), needs_grad=True)
    _block(layout).place(x, x.grad)  # upstream: a field made without a shape places its gradient itself
    _fill_cells(x, [1, 2, 6], rng)

    @qd.kernel
    def energy():
        for i in x:
            y[None] += qd.sin(x[i]) * x[i] ** 2 + qd.cast(i, qd.f64) * x[i]

    def run():
        y[None] = 0.0
        energy()
        return y.to_numpy()

    expected = central_difference(run, x)
    run()
    y.grad[None] = 1.0
    energy.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-8)
    assert _active_cells(x) == [1, 2, 6]  # the adjoint activated nothing new
    assert not x.grad.to_numpy()[:BLOCK].any()  # an inactive cell's gradient reads 0


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tape_over_sparse_to_sparse_kernels(layout):
    rng = np.random.default_rng(1)
    x = qd.field(qd.f64, needs_grad=True)
    z = qd.field(qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    block = _block(layout)
    block.place(x, z)  # two fields in the same cells
    qd.root.lazy_grad()  # their gradients beside them
    _fill_cells(x, [0, 3, 5], rng)

    @qd.kernel
    def squash():
        for i in x:
            z[i] = qd.tanh(x[i]) * 2.0 + x[i] * x[i]

    @qd.kernel
    def total():
        for i in z:
            loss[None] += z[i] ** 3

    def run():
        loss[None] = 0.0
        squash()
        total()
        return loss.to_numpy()

    expected = central_difference(run, x)
    loss[None] = 0.0
    with qd.ad.Tape(loss=loss):
        squash()
        total()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-8)
    zx = z.to_numpy()
    np.testing.assert_allclose(z.grad.to_numpy(), 0.0)  # z = ... overwrote z: its old value gets nothing
    assert np.count_nonzero(zx) == 3 * BLOCK


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradient_into_an_inactive_cell_activates_it(layout):
    """out[i] = x[i] * x[i - BLOCK] reads the cell before each active one: upstream's adjoint adds into
    x.grad there, activating that cell (the primal's data there stays 0), and the adjoint of the loop
    still visits only the cells that were active when it ran."""
    x = qd.field(qd.f64, needs_grad=True)
    out = qd.field(qd.f64, needs_grad=True)
    _block(layout).place(x, x.grad, out, out.grad)
    values = np.arange(1.0, 1.0 + BLOCK)
    for k in range(BLOCK):
        x[3 * BLOCK + k] = values[k]

    @qd.kernel
    def neighbours():
        for i in x:
            if i >= BLOCK:
                out[i] = x[i] * x[i - BLOCK]

    neighbours()
    assert _active_cells(x) == [3]
    for k in range(BLOCK):
        out.grad[3 * BLOCK + k] = 1.0
    neighbours.grad()
    grad = x.grad.to_numpy()
    np.testing.assert_allclose(grad[2 * BLOCK:3 * BLOCK], values)  # d out / d x[i - BLOCK] = x[i]
    np.testing.assert_allclose(grad[3 * BLOCK:4 * BLOCK], 0.0)  # x[i - BLOCK] was 0
    assert not grad[:2 * BLOCK].any() and not grad[4 * BLOCK:].any()
    assert _active_cells(x) == [2, 3]  # cell 2 holds gradients now; cell 1 was never reached
    np.testing.assert_allclose(x.to_numpy()[2 * BLOCK:3 * BLOCK], 0.0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_atomic_accumulation_between_sparse_fields(layout):
    rng = np.random.default_rng(4)
    x = qd.field(qd.f64, needs_grad=True)
    acc = qd.field(qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    _block(layout).place(x, x.grad)
    acc_cells = qd.root.pointer(qd.i, N // 2)  # each of its cells holds two of x's
    acc_cells.dense(qd.i, BLOCK).place(acc, acc.grad)
    _fill_cells(x, [0, 5, 7], rng)

    @qd.kernel
    def gather():
        for i in x:
            acc[i // 2] += x[i] ** 2

    @qd.kernel
    def total():
        for j in acc:
            loss[None] += qd.sqrt(acc[j] + 1.0)

    def run():
        acc_cells.deactivate_all()
        loss[None] = 0.0
        gather()
        total()
        return loss.to_numpy()

    expected = central_difference(run, x)
    acc_cells.deactivate_all()
    loss[None] = 0.0
    with qd.ad.Tape(loss=loss):
        gather()
        total()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_range_for_reading_every_cell_activates_every_gradient_cell(layout):
    """A range-for reads inactive cells too: each gets its gradient (and is active after), as upstream."""
    x = qd.field(qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    _block(layout).place(x, x.grad)
    x[2 * BLOCK] = 3.0

    @qd.kernel
    def weighted():
        for i in range(N * BLOCK):
            loss[None] += x[i] * qd.cast(i + 1, qd.f64)

    weighted()
    loss.grad[None] = 1.0
    weighted.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), np.arange(1.0, N * BLOCK + 1.0))
    assert _active_cells(x) == list(range(N))
    assert x.to_numpy().sum() == 3.0


@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_sparse_field_without_gradient_in_a_differentiated_kernel(kind):
    """A store into a sparse field that has no gradient (under a pointer: an allocation) in a kernel whose
    dense fields have gradients: the adjoint neither replays nor rejects it."""
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    w = qd.field(qd.f64)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    getattr(qd.root, kind)(qd.i, N // 2).dense(qd.i, 2).place(w)
    x.from_numpy(np.arange(1.0, N + 1.0))

    @qd.kernel
    def k():
        for i in x:
            w[i] = x[i] * 2.0
            loss[None] += x[i] ** 2

    k()
    loss.grad[None] = 1.0
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), 2.0 * np.arange(1.0, N + 1.0))
    np.testing.assert_allclose(w.to_numpy(), 2.0 * np.arange(1.0, N + 1.0))


def test_2d_pointer_vector_field_gradient():
    rng = np.random.default_rng(2)
    v = qd.Vector.field(2, qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    qd.root.pointer(qd.ij, (3, 3)).dense(qd.ij, (2, 2)).place(v, v.grad)
    for i, j in [(0, 0), (1, 3), (5, 4), (4, 1)]:
        v[i, j] = rng.uniform(-1.0, 1.0, 2)

    @qd.kernel
    def norm():
        for i, j in v:
            loss[None] += (v[i, j].dot(v[i, j]) + 1.0) ** 1.5 + v[i, j][0] * qd.cast(j, qd.f64)

    def run():
        loss[None] = 0.0
        norm()
        return loss.to_numpy()

    expected = central_difference(run, v)
    run()
    loss.grad[None] = 1.0
    norm.grad()
    np.testing.assert_allclose(v.grad.to_numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("rows", [None, 3, 100])  # 100: past _MIN_LISTS, the listed struct-for (sparse_loops.py)
def test_dynamic_list_gradient(rows):
    x = qd.field(qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    if rows is None:
        qd.root.dynamic(qd.i, 16, chunk_size=4).place(x, x.grad)
    else:
        qd.root.dense(qd.i, rows).dynamic(qd.j, 16, chunk_size=4).place(x, x.grad)

    flat = rows is None

    @qd.kernel
    def fill():
        for k in range(5):
            if qd.static(flat):
                x.append(0.3 * k + 0.2)
            else:
                for r in range(rows - 1):  # the last list stays empty
                    x[r].append(0.3 * k + 0.2 * r + 0.1)

    @qd.kernel
    def cube():
        for I in qd.grouped(x):
            loss[None] += x[I] ** 3 * qd.exp(-x[I])

    def run():
        loss[None] = 0.0
        cube()
        return loss.to_numpy()

    fill()
    if rows is not None and rows > 3:  # a loss summed over 495 entries: finite differences lose the digits
        values = x.to_numpy()
        expected = (3 * values**2 - values**3) * np.exp(-values)  # 0 where the lists hold no entry
    else:
        expected = central_difference(run, x)
    run()
    loss.grad[None] = 1.0
    cube.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-8)
    assert np.count_nonzero(x.to_numpy()) == 5 * (1 if rows is None else rows - 1)
    lengths = qd.field(qd.i32, shape=rows or 1)

    @qd.kernel
    def read_lengths():
        for r in range(rows or 1):
            if qd.static(flat):
                lengths[r] = x.length()
            else:
                lengths[r] = x[r].length()

    read_lengths()  # the adjoint appended nothing
    assert list(lengths.to_numpy()) == ([5] if flat else [5] * (rows - 1) + [0])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_forward_mode_on_sparse_fields(layout):
    rng = np.random.default_rng(3)
    x = qd.field(qd.f64, needs_dual=True)
    y = qd.field(qd.f64, needs_dual=True)
    loss = qd.field(qd.f64, shape=(), needs_dual=True)
    _block(layout).place(x, y, x.dual, y.dual)
    _fill_cells(x, [2, 4], rng)

    @qd.kernel
    def k():
        for i in x:
            y[i] = qd.exp(x[i]) * x[i]
            loss[None] += y[i] * x[i]

    seed = np.zeros(N * BLOCK)
    seed[2 * BLOCK:3 * BLOCK] = rng.uniform(-1.0, 1.0, BLOCK)
    seed[4 * BLOCK + 1] = 0.7

    def run():
        loss[None] = 0.0
        k()
        return loss.to_numpy()

    base, h = x.to_numpy(), 1e-6
    x.from_numpy(base + h * seed)
    plus = run()
    x.from_numpy(base - h * seed)
    minus = run()
    x.from_numpy(base)
    loss[None] = 0.0
    with qd.ad.FwdMode(loss=loss, param=x, seed=list(seed)):
        k()
    np.testing.assert_allclose(loss.dual[None], (plus - minus) / (2 * h), rtol=1e-6)
    assert _active_cells(y) == [2, 4]


def test_struct_field_under_a_pointer():
    rng = np.random.default_rng(5)
    particles = qd.Struct.field({"pos": qd.math.vec2, "mass": qd.f64}, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    cells = qd.root.pointer(qd.i, N).dense(qd.i, BLOCK)
    cells.place(particles)
    qd.root.lazy_grad()
    for i in [1, 2, 9, 30]:
        particles.pos[i] = rng.uniform(-1.0, 1.0, 2)
        particles.mass[i] = rng.uniform(0.5, 2.0)

    @qd.kernel
    def energy():
        for i in particles:
            loss[None] += 0.5 * particles.mass[i] * particles.pos[i].dot(particles.pos[i]) * qd.exp(particles.pos[i][1])

    def run():
        loss[None] = 0.0
        energy()
        return loss.to_numpy()

    expected_pos, expected_mass = central_difference(run, particles.pos), central_difference(run, particles.mass)
    run()
    loss.grad[None] = 1.0
    energy.grad()
    np.testing.assert_allclose(particles.pos.grad.to_numpy(), expected_pos, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(particles.mass.grad.to_numpy(), expected_mass, rtol=1e-6, atol=1e-8)


def test_appending_in_a_differentiated_kernel_is_refused():
    x = qd.field(qd.f64, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    qd.root.dynamic(qd.i, 16).place(x, x.grad)

    @qd.kernel
    def grow():
        x.append(1.0)
        for i in x:
            loss[None] += x[i]

    grow()
    loss.grad[None] = 1.0
    with pytest.raises(Exception, match=r"cannot differentiate a kernel that calls qd\.append\(\)"):
        grow.grad()
