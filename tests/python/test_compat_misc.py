# tests/python/test_compat_misc.py: upstream behaviours that its own tests pin: placement checks before a kernel
# compiles, unpacked vector struct members, loop variables the body reassigns, raise_on_templated_floats, and the
# wording of the reverse-mode cross-iteration error.
import gc

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.init(arch=qd.cpu)  # fields left unplaced by a test must not reach the next file's kernels


def _noop_kernel():
    @qd.kernel
    def noop():
        pass

    return noop


# ---- placement checks (python/quadrants/field_checks.py) -------------------------------------------------------
def test_unplaced_field_fails_the_next_compile_until_placed():
    x = qd.field(qd.i32, name="lonely")
    with pytest.raises(RuntimeError, match=r"(?s)These field\(s\) are not placed:.*field 'lonely', declared at "
                                           r".*test_compat_misc.py"):
        _noop_kernel()()
    qd.root.dense(qd.i, 2).place(x)
    _noop_kernel()()  # placed now: no error


def test_dropped_unplaced_field_is_not_reported():
    qd.field(qd.f32)  # a temporary no kernel can use
    gc.collect()
    _noop_kernel()()


@pytest.mark.parametrize("make", [
    lambda **kw: qd.field(qd.f32, **kw),
    lambda **kw: qd.Vector.field(3, qd.f32, **kw),
    lambda **kw: qd.Matrix.field(2, 3, qd.f32, **kw),
], ids=["scalar", "vector", "matrix"])
@pytest.mark.parametrize("kind", ["grad", "dual"])
def test_needed_gradient_must_be_placed_by_the_program(make, kind):
    x = make(**{f"needs_{kind}": True})
    qd.root.dense(qd.i, 4).place(x)
    assert getattr(x, kind).shape is None  # not placed with x, as upstream
    with pytest.raises(RuntimeError, match=rf"requrie `needs_{kind}=True`, however their {kind} field\(s\) are "
                                           r"not placed"):
        _noop_kernel()()
    qd.root.dense(qd.i, 4).place(getattr(x, kind))
    _noop_kernel()()


def test_gradient_placed_explicitly_or_by_lazy_grad_is_used_by_kernels():
    x = qd.field(qd.f32, needs_grad=True)
    y = qd.field(qd.f32, needs_grad=True)
    qd.root.dense(qd.i, 4).place(x, x.grad)
    qd.root.dense(qd.i, 4).place(y)
    qd.root.lazy_grad()
    loss = qd.field(qd.f32, shape=(), needs_grad=True)  # with a shape: its gradient is placed with it

    @qd.kernel
    def total():
        for i in x:
            loss[None] += x[i] * x[i] + 3 * y[i]

    x.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(loss):
        total()
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.arange(4))
    np.testing.assert_allclose(y.grad.to_numpy(), [3, 3, 3, 3])


def test_struct_field_gradients_must_be_placed():
    s = qd.Struct.field({"pos": qd.types.vector(3, float), "mass": qd.f32}, needs_grad=True)
    qd.root.dense(qd.i, 2).place(s)
    with pytest.raises(RuntimeError, match="requrie `needs_grad=True`"):
        _noop_kernel()()
    qd.root.dense(qd.i, 2).place(s.grad)
    _noop_kernel()()


# ---- unpacked vector members (python/quadrants/lang/unpacked.py) -----------------------------------------------
@qd.dataclass
class Tile:
    r: qd.types.vector(4, qd.f32, unpacked=True)
    scale: qd.f32


@qd.dataclass
class Outer:
    inner: Tile
    bias: qd.f32


def test_unpacked_member_becomes_scalar_members():
    assert list(Tile.members) == ["_r0", "_r1", "_r2", "_r3", "scale"]
    count, dtype, _ = Tile._unpacked_groups["r"]
    assert count == 4 and dtype is qd.f32


def test_unpacked_member_static_reads_and_writes_in_kernels():
    out = qd.field(qd.f32, shape=6)
    tiles = Tile.field(shape=2)
    outers = Outer.field(shape=1)

    @qd.kernel
    def run():
        for _ in range(1):
            t = Tile()
            for i in qd.static(range(4)):
                t.r[i] = qd.cast(10 + i, qd.f32)
            t.r[1] += 5.0
            out[0] = t.r[1]
            o = Outer()
            o.inner.r[3] = 7.0
            out[1] = o.inner.r[3] + o.inner.r[0]
        for n in range(2):
            for i in qd.static(range(4)):
                tiles[n].r[i] = qd.cast(n * 10 + i, qd.f32)
        outers[0].inner.r[2] = 4.0
        outers[0].bias = 0.5
        out[2] = tiles[0].r[1] + tiles[1].r[3]
        out[3] = outers[0].inner.r[2] + outers[0].bias

    run()
    np.testing.assert_allclose(out.to_numpy()[:4], [16, 7, 14, 4.5])
    assert tiles[1]._r3 == 13


def test_unpacked_member_rejects_runtime_and_out_of_range_indices():
    @qd.kernel
    def runtime_index():
        t = Tile()
        for i in range(4):
            t.r[i] = 1.0

    @qd.kernel
    def out_of_range():
        t = Tile()
        t.r[4] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="python-int index"):
        runtime_index()
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"out of bounds: r\[4\] \(count=4\)"):
        out_of_range()


def test_unpacked_type_is_only_a_member_annotation():
    unpacked = qd.types.vector(4, qd.f32, unpacked=True)
    for use in (lambda: unpacked(1, 2, 3, 4), lambda: unpacked.field(shape=8), lambda: unpacked.ndarray(shape=8)):
        with pytest.raises(qd.QuadrantsSyntaxError, match=r"unpacked=True.*@qd.dataclass"):
            use()
    with pytest.raises(qd.QuadrantsSyntaxError, match="kernel parameter 'v'"):
        @qd.kernel
        def takes(v: unpacked):
            pass


@pytest.mark.parametrize("order", ["before", "after"])
def test_unpacked_member_name_collisions_are_rejected(order):
    members = {"_r0": qd.f32, "r": qd.types.vector(2, qd.f32, unpacked=True)}
    if order == "after":
        members = dict(reversed(list(members.items())))
    with pytest.raises(qd.QuadrantsSyntaxError, match="'_r0' collides .* unpacked=True"):
        qd.types.struct(**members)


# ---- loop variables the body reassigns (python/quadrants/lang/loops.py) -----------------------------------------
def test_loop_variable_reassigned_in_the_body_is_a_copy():
    x = qd.field(qd.f32, shape=8)

    @qd.kernel
    def run():
        for i in range(8):
            i = qd.cast(i, qd.i32)
            x[i] = i * 2
        for j in range(3):
            if j == 1:
                j = 5
            x[j] += 100

    run()
    np.testing.assert_array_equal(x.to_numpy(), [100, 2, 104, 6, 8, 110, 12, 14])


# ---- qd.init(raise_on_templated_floats=True) (python/quadrants/lang/templated_floats.py) ------------------------
@qd.data_oriented
class _Holder:
    def __init__(self, value):
        self.value = value


@pytest.mark.parametrize("enabled", [False, True])
def test_raise_on_templated_floats(enabled):
    qd.init(arch=qd.cpu, raise_on_templated_floats=enabled)
    out = qd.field(qd.f32, shape=())
    scale = 1.5

    @qd.kernel
    def baked(a: qd.template()):
        out[None] = a

    @qd.kernel
    def holder(h: qd.template()):
        out[None] = h.value

    @qd.kernel
    def captured():
        out[None] = scale

    baked(2)
    holder(_Holder(3))
    if not enabled:
        baked(1.25), holder(_Holder(0.5)), captured()
        assert out[None] == 1.5
        return
    with pytest.raises(ValueError, match="template argument 'a' is a float"):
        baked(1.25)
    with pytest.raises(ValueError, match=r"template argument 'h.value' is a float"):
        holder(_Holder(0.5))
    with pytest.raises(qd.QuadrantsCompilationError, match="'scale' is a Python float"):
        captured()


# ---- reverse-mode cross-iteration error, in upstream's words (src/passes/reverse_ad_races.h) --------------------
def test_cross_iteration_read_after_write_names_itself_as_upstream():
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    out = qd.field(qd.f32, shape=4, needs_grad=True)

    @qd.kernel
    def chain():
        for i in range(4):
            if i == 0:
                out[i] = x[None]
            else:
                out[i] = out[i - 1] + x[None]

    chain()
    with pytest.raises(qd.QuadrantsCompilationError, match="Cross-iteration read-after-write"):
        chain.grad()


def test_reading_the_gradient_of_a_field_without_one_names_it():
    x = qd.field(qd.f32, shape=(), name="x")
    out = qd.field(qd.f32, shape=())

    @qd.kernel
    def read(f: qd.template()):
        out[None] = f.grad[None]

    with pytest.raises(qd.QuadrantsCompilationError, match=r"Gradient x.grad has not been placed, check whether "
                                                            r"`needs_grad=True`"):
        read(x)
