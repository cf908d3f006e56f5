# tests/python/test_graph_do_while_ours.py: `while qd.graph.do_while(flag):` loops in graph kernels.
#
# Results are compared with the serial program's; the IR checks make sure the loops inside stay parallel_fors in a
# graph_do_while, and the CUDA checks (NVRTC, the driver emulation) that CUDA plans the loop as a range of tasks
# that its launcher repeats. Every compile error is checked by its message.

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core
from emulated_cuda import run_on_cuda_emulation

N = 32


def i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


@qd.kernel(graph=True)
def counted(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0),
            seen: qd.types.ndarray(qd.i32, ndim=0)):
    seen[()] = seen[()] + 1  # before the loop: once
    steps = 0
    while qd.graph.do_while(c):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        c[()] = c[()] - 1  # a bare statement in the body: every iteration
        steps += 1
    for i in range(x.shape[0]):  # after the loop: once, and it sees the count the loop carried
        x[i] = x[i] * 10 + steps


def test_counter_runs_the_body_per_iteration_and_the_rest_once():
    x, c, seen = i32(0, (N,)), i32(5), i32(0)
    counted(x, c, seen)
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 5 * 10 + 5))
    assert int(c.to_numpy()) == 0 and int(seen.to_numpy()) == 1


def test_do_while_runs_the_body_at_least_once():
    x, c, seen = i32(0, (N,)), i32(1), i32(0)
    counted(x, c, seen)
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 1 * 10 + 1))


def test_loops_inside_stay_parallel():
    ir = counted.export_ir(i32(0, (N,)), i32(1), i32(0))
    body = ir[ir.index("(graph_do_while c"):]
    assert ir.count("(parallel_for") == 2 and body.count("(parallel_for") == 2  # the one in the loop, then after


@qd.kernel(graph=True)
def nested(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0),
           inner: qd.types.ndarray(qd.i32, ndim=0), total: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(outer):
        inner[()] = 3
        while qd.graph.do_while(inner):
            s = 0
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
                s += 1  # a shared local of the loop body: reduced across the iterations
            total[()] = total[()] + s
            inner[()] = inner[()] - 1
        outer[()] = outer[()] - 1


def test_nested_loops_and_a_reduction_into_a_body_local():
    x, outer, inner, total = i32(0, (N,)), i32(4), i32(0), i32(0)
    nested(x, outer, inner, total)
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 12))
    assert int(total.to_numpy()) == 12 * N and int(outer.to_numpy()) == 0


@qd.kernel(graph=True)
def siblings(x: qd.types.ndarray(qd.i32, ndim=1), a: qd.types.ndarray(qd.i32, ndim=0),
             b: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(a):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        a[()] = a[()] - 1
    while qd.graph.do_while(b):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2
        b[()] = b[()] - 1


def test_sibling_loops_run_in_order():
    x, a, b = i32(0, (N,)), i32(3), i32(2)
    siblings(x, a, b)
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 12))


def test_flag_may_be_a_data_oriented_member():
    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.x, self.counter = i32(0, (N,)), i32(4)

        @qd.kernel(graph=True)
        def step(self):
            while qd.graph.do_while(self.counter):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 2
                self.counter[()] = self.counter[()] - 1

    sim = Sim()
    sim.step()
    np.testing.assert_array_equal(sim.x.to_numpy(), np.full(N, 8))


# ---- CUDA: the loop is a range of tasks that the launcher repeats ------------------------------------------
def test_cuda_plans_each_loop_as_a_range_of_tasks():
    if not _core.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    compiled = _core.compile_kernel_cuda(nested.export_ir(i32(0, (N,)), i32(1), i32(0), i32(0)), 9, 0)
    ends = compiled.task_loop_ends
    parallel = [t[1] for t in compiled.tasks]
    # tasks: [inner = 3] [s = 0] [parallel loop] [total += s; inner -= 1] [outer -= 1]; params: x outer inner total
    assert parallel == [False, False, True, False, False]
    assert ends == [[], [], [], [(1, 2)], [(0, 1)]]


_EMULATED_RUN = """
import numpy as np, quadrants as qd
qd.init(arch=qd.cuda)
from tests.python import test_graph_do_while_ours as t
t.test_counter_runs_the_body_per_iteration_and_the_rest_once()
t.test_nested_loops_and_a_reduction_into_a_body_local()
t.test_sibling_loops_run_in_order()
print("ran on", qd.lang.impl.current_cfg().arch)
"""


def test_runs_on_the_cuda_driver_emulation(tmp_path):
    assert "ran on qd.cuda" in run_on_cuda_emulation(_EMULATED_RUN, tmp_path)


# ---- errors ---------------------------------------------------------------------------------------------
def test_requires_a_graph_kernel():
    @qd.kernel
    def k(c: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(c):
            c[()] = c[()] - 1

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"requires @qd.kernel\(graph=True\)"):
        k(i32(1))


def test_only_at_the_kernel_top_level():
    @qd.kernel(graph=True)
    def k(c: qd.types.ndarray(qd.i32, ndim=0)):
        if c[()] > 0:
            while qd.graph.do_while(c):
                c[()] = c[()] - 1

    with pytest.raises(qd.QuadrantsSyntaxError, match="kernel top level"):
        k(i32(1))


def test_flag_must_be_a_0d_i32_ndarray_argument():
    field = qd.field(qd.i32, shape=())

    @qd.kernel(graph=True)
    def on_field(x: qd.types.ndarray(qd.i32, ndim=1)):
        while qd.graph.do_while(field):
            x[0] = 0

    @qd.kernel(graph=True)
    def on_f32(c: qd.types.ndarray(qd.f32, ndim=0)):
        while qd.graph.do_while(c):
            c[()] = 0.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="does not resolve to an ndarray kernel parameter"):
        on_field(i32(0, (N,)))
    with pytest.raises(qd.QuadrantsTypeError, match=r"needs a 0-d qd.i32 ndarray, but 'c' is a 0-d f32"):
        c = qd.ndarray(qd.f32, shape=())
        on_f32(c)


def test_outside_kernels_it_says_how_to_use_it():
    with pytest.raises(RuntimeError, match="inside a @qd.kernel"):
        qd.graph.do_while(None)


# ---- qd.checkpoint: a no-op in Python, refused without checkpoints=True (tests/python/test_checkpoint_ours.py) ----
def test_checkpoint_is_a_no_op_outside_kernels():
    ran = []
    with qd.checkpoint(0, None):
        ran.append(1)
    assert ran == [1]


def test_checkpoint_needs_the_checkpoints_option():
    @qd.kernel(graph=True)
    def no_option(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.checkpoint(0, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"checkpoints=True"):
        no_option(i32(0, (N,)), i32(0))
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"checkpoints=True\) requires graph=True"):
        @qd.kernel(checkpoints=True)
        def bad(x: qd.types.ndarray(qd.i32, ndim=1)):
            x[0] = 1
