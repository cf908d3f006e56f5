# tests/python/test_compat_builtins.py: qd.stop_grad, qd.volatile_load, qd.block_local, qd.pure,
# loop_config(block_dim_adaptive=), impl.call_internal, compile-time-false asserts and dict comprehensions.
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core
from quadrants.lang import impl


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _square_sum_grads(stop_in_first_loop):
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in range(4):
            loss[None] += x[i] ** 2
            if qd.static(stop_in_first_loop):
                qd.stop_grad(x)  # after the read: as upstream, it holds for the whole block
        for i in range(4):
            loss[None] += x[i] ** 2

    x.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(loss):
        k()
    return x.grad.to_numpy(), loss[None]


def test_stop_grad_is_block_scoped_and_keeps_values():
    grads, loss = _square_sum_grads(True)
    np.testing.assert_array_equal(grads, 2 * np.arange(4))  # the second loop's gradient only
    assert loss == 2 * (0 + 1 + 4 + 9)
    grads, _ = _square_sum_grads(False)
    np.testing.assert_array_equal(grads, 4 * np.arange(4))


def test_stop_grad_in_forward_mode():
    x = qd.field(qd.f32, shape=2, needs_dual=True)
    y = qd.field(qd.f32, shape=2, needs_dual=True)

    @qd.kernel
    def k():
        for i in range(2):
            qd.stop_grad(x)
            y[i] = x[i] * 3.0

    with qd.ad.FwdMode(loss=y, param=x, seed=[1.0, 1.0]):
        k()
    np.testing.assert_array_equal(y.dual.to_numpy(), [0.0, 0.0])


def test_stop_grad_rejects_an_element():
    x = qd.field(qd.f32, shape=2)

    @qd.kernel
    def k():
        qd.stop_grad(x[0])

    with pytest.raises(qd.QuadrantsTypeError, match="takes a field or an ndarray"):
        k()


def test_volatile_load_reads_and_differentiates_like_a_load():
    flags = qd.field(qd.f32, shape=4, needs_grad=True)
    total = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in range(4):
            total[None] += 2.0 * qd.volatile_load(flags[i])

    flags.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(total):
        k()
    assert total[None] == 12.0
    np.testing.assert_array_equal(flags.grad.to_numpy(), [2.0] * 4)


def test_volatile_load_of_vector_ndarray_element_and_f16():
    v = qd.ndarray(qd.math.vec2, shape=3)
    h = qd.field(qd.f16, shape=())

    @qd.kernel
    def k(v: qd.types.ndarray(dtype=qd.math.vec2, ndim=1)) -> qd.f32:
        s = qd.volatile_load(v[1]).sum()
        return s + qd.volatile_load(h[None])

    v.from_numpy(np.array([[0, 0], [1.5, 2.5], [0, 0]], dtype=np.float32))
    h[None] = 0.5
    assert k(v) == 4.5


def test_volatile_load_is_volatile_in_the_ir_and_the_generated_code():
    @qd.kernel
    def spin(flags: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in range(4):
            seen = 0
            for _ in range(3):  # a plain, loop-invariant load here could be hoisted out of the loop
                seen += qd.volatile_load(flags[0])
            out[i] = seen + flags[0]

    signature = (("array", "i32", 1, (), True, True),) * 2
    ir = spin.ir(signature)
    assert ir.count("(un volatile_load (load flags") == 1  # the plain read stays plain
    assert "qd_volatile_load(a_flags" in _core.generate_cuda_source(ir)
    flags, out = np.ones(1, np.int32), np.zeros(4, np.int32)
    spin(flags, out)
    np.testing.assert_array_equal(out, [4] * 4)


def test_volatile_load_rejects_what_is_not_global_memory():
    flags = qd.field(qd.i32, shape=2)

    @qd.kernel
    def expression():
        x = 1
        qd.volatile_load(x + 1)

    @qd.kernel
    def bare_field():
        qd.volatile_load(flags)

    @qd.kernel
    def local_vector():
        v = qd.Vector([0, 0])
        qd.volatile_load(v)

    with pytest.raises(qd.QuadrantsSyntaxError, match="lvalue"):
        expression()
    with pytest.raises(qd.QuadrantsSyntaxError, match="Field directly"):
        bare_field()
    with pytest.raises(qd.QuadrantsTypeError, match="local array"):
        local_vector()


def test_block_local_is_a_hint_and_checks_its_arguments():
    a = qd.field(qd.f32, shape=4)
    out = qd.field(qd.f32, shape=4)

    @qd.kernel
    def ok():
        qd.block_local(a)
        for i in range(4):
            out[i] = a[i] + 1.0

    a.fill(2.0)
    ok()
    np.testing.assert_array_equal(out.to_numpy(), [3.0] * 4)

    @qd.kernel
    def bad():
        qd.block_local(3)

    with pytest.raises(qd.QuadrantsTypeError, match="takes fields"):
        bad()


def test_pure_returns_the_kernel_and_warns():
    with pytest.warns(DeprecationWarning, match="fastcache") if not qd.kernels.kernel._pure_warned else _nothing():
        @qd.pure
        @qd.kernel
        def k() -> qd.i32:
            return 5

    assert k() == 5
    with pytest.raises(TypeError, match="decorates a kernel"):
        qd.pure(3)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_loop_config_block_dim_adaptive():
    out = qd.field(qd.i32, shape=64)

    @qd.kernel
    def k():
        qd.loop_config(block_dim_adaptive=False)
        for i in range(64):
            out[i] = i

    k()
    np.testing.assert_array_equal(out.to_numpy(), np.arange(64))

    @qd.kernel
    def bad():
        qd.loop_config(block_dim_adaptive=3)
        for i in range(4):
            out[i] = i

    with pytest.raises(qd.QuadrantsTypeError, match="True or False"):
        bad()


def test_loop_config_name_on_a_nested_loop_warns_that_it_is_dropped():
    import warnings

    out = qd.field(qd.i32, shape=8)

    @qd.kernel
    def named():
        qd.loop_config(name="top")
        for i in range(8):
            out[i] = 1
        for _ in qd.static(range(2)):
            qd.loop_config(name="unrolled")
            for i in range(8):
                out[i] += 1
        for _ in range(2):
            qd.loop_config(name="inner")
            for i in range(8):
                out[i] += 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        named()
    assert [str(w.message).split(" is on ")[0] for w in caught] == ["qd.loop_config(name='inner')"]
    assert "nested inside another for-loop, so the name is ignored" in str(caught[0].message)
    assert caught[0].filename == __file__ and caught[0].lineno == named.__wrapped__.__code__.co_firstlineno + 11
    np.testing.assert_array_equal(out.to_numpy(), np.full(8, 5))

    @qd.kernel
    def bad():
        qd.loop_config(name=3)
        for i in range(4):
            out[i] = i

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.loop_config\(name=...\) must be a str, but got 3"):
        bad()


def test_call_internal():
    @qd.kernel
    def k() -> qd.i32:
        impl.call_internal("do_nothing")
        return impl.call_internal("test_internal_func_args", 1.5, 2.0, 3)

    assert k() == 10  # i32((1.5 + 2.0) * 3)

    @qd.kernel
    def missing():
        impl.call_internal("test_node_allocator")

    with pytest.raises(qd.QuadrantsTypeError, match="does not have"):
        missing()

    @qd.kernel
    def int_for_f32():
        impl.call_internal("test_internal_func_args", 1, 2, 3)

    @qd.kernel
    def too_few():
        impl.call_internal("test_internal_func_args", 1.0)

    # upstream's exact signature (f32, f32, i32) and its words
    with pytest.raises(qd.QuadrantsTypeError, match="expected f32 for argument #1, but got i32"):
        int_for_f32()
    with pytest.raises(qd.QuadrantsTypeError, match="1 arguments were passed in but expected 3"):
        too_few()


def test_call_internal_test_stack_checks_our_ad_stack_in_each_thread():
    # upstream's self-test of its AD stack runs ours: 0 when four pushed values come back last to first
    @qd.kernel
    def serial() -> qd.i32:
        return impl.call_internal("test_stack")

    @qd.kernel
    def parallel(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in out:
            out[i] = impl.call_internal("test_stack") + i * 10

    assert serial() == 0
    out = np.full(8, -1, np.int32)
    parallel(out)
    assert out.tolist() == [i * 10 for i in range(8)]


def test_compile_time_false_assert_is_checked_at_run_time_in_debug_only():
    @qd.kernel
    def k() -> qd.i32:
        assert False, "never"
        return 1

    assert k() == 1  # release: ignored, as upstream
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def k2():
        assert 0, "checked"

    with pytest.raises(AssertionError, match="checked"):
        k2()


def test_dict_comprehension_and_double_star():
    @qd.kernel
    def k(n: qd.template(), key: qd.template()) -> qd.i32:
        a = {i: i * i for i in range(n) if i % 2}
        b = {100: 1, **a}
        return b[key] + b[100]

    assert k(6, 3) == 10
    with pytest.raises(qd.QuadrantsCompilationError):
        k(6, 2)


def test_comprehension_over_a_matrix_iterates_its_rows():
    @qd.kernel
    def k() -> qd.i32:
        m = qd.Matrix([[1, 2], [3, 4]])
        firsts = [row[0] for row in m]
        flat = [x for row in m for x in row]
        return firsts[1] * 100 + flat[3]

    assert k() == 304
