# tests/python/test_cuda_graph.py: @qd.kernel(graph=True) replayed as a CUDA graph (src/runtime/cuda/graph.h).
#
# Every test checks results over repeated calls with other arrays, shapes and scalars, and the graph counters of
# impl.get_runtime().prog: on CUDA (QD_TEST_ARCH=cuda: the driver emulation, or a GPU) a graph is built once per
# kernel and device and replayed, a qd.graph.do_while loop is a conditional WHILE node; on the CPU the counters
# stay 0, as upstream's. The last tests run on the emulation in a child process whatever the suite's arch.
import numpy as np
import pytest

import quadrants as qd
from quadrants.lang import impl
from quadrants.runtime import _core
from emulated_cuda import run_on_cuda_emulation

prog = impl.get_runtime().prog


@pytest.fixture(autouse=True)
def fresh_program():
    qd.reset()
    qd.init()  # the CPU, or CUDA under QD_TEST_ARCH=cuda
    yield


def on_cuda():
    return impl.current_cfg().arch == qd.cuda


def counters():
    return (prog.get_graph_num_nodes_on_last_call(), prog.get_graph_cache_used_on_last_call(),
            prog.get_graph_cache_size(), prog.get_graph_total_builds())


def expect(nodes, cache_size=1, builds=1):
    """The counters after a graph kernel's launch: its graph on CUDA, nothing on the CPU."""
    if on_cuda():
        assert counters() == (nodes, True, cache_size, builds)
    else:
        assert counters() == (0, False, 0, 0)


def filled(value, shape, dtype=qd.i32):
    array = qd.ndarray(dtype, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32 if dtype == qd.i32 else np.float32))
    return array


@qd.kernel(graph=True)
def two_loops(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1), s: qd.f32):
    for i in range(x.shape[0]):
        x[i] = x[i] + s
    for i in range(y.shape[0]):
        y[i] = y[i] + 2 * s


def test_one_graph_serves_other_arrays_shapes_and_scalars():
    x, y = filled(0.0, (256,), qd.f32), filled(0.0, (256,), qd.f32)
    two_loops(x, y, 1.0)
    tasks = prog.get_num_offloaded_tasks_on_last_call()
    assert tasks == 2
    expect(nodes=tasks)
    two_loops(x, y, 0.5)
    expect(nodes=tasks)
    np.testing.assert_array_equal(x.to_numpy(), np.full(256, 1.5))
    np.testing.assert_array_equal(y.to_numpy(), np.full(256, 3.0))
    # Larger arrays: a graph whose grids or argument pointers were baked in would leave elements past 256 at 0.
    big_x, big_y = filled(1.0, (5000,), qd.f32), filled(2.0, (300,), qd.f32)
    two_loops(big_x, big_y, 3.0)
    expect(nodes=tasks)
    np.testing.assert_array_equal(big_x.to_numpy(), np.full(5000, 4.0))
    np.testing.assert_array_equal(big_y.to_numpy(), np.full(300, 8.0))
    np.testing.assert_array_equal(x.to_numpy(), np.full(256, 1.5))  # the first arrays are left alone


@qd.kernel(graph=True)
def total(x: qd.types.ndarray(qd.i32, ndim=1), bias: qd.i32) -> qd.i32:
    acc = 0
    for i in range(x.shape[0]):
        acc += x[i] + bias
    return acc


def test_returned_values_come_from_each_replay():
    for n, bias in ((10, 0), (1000, 2), (3, -1)):
        x = qd.ndarray(qd.i32, shape=(n,))
        x.from_numpy(np.arange(n, dtype=np.int32))
        assert total(x, bias) == n * (n - 1) // 2 + n * bias
        expect(nodes=prog.get_num_offloaded_tasks_on_last_call())


@qd.kernel(graph=True)
def countdown(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(c):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        for _ in range(1):
            c[()] = c[()] - 1


def test_do_while_is_a_conditional_node_and_reads_each_launchs_flag():
    x = filled(0, (64,))
    c1, c2 = filled(5, ()), filled(7, ())
    countdown(x, c1)
    tasks = prog.get_num_offloaded_tasks_on_last_call()
    assert tasks == 2 or not on_cuda()  # the CPU runs the loop inside one task
    expect(nodes=tasks + 2)  # the tasks, the WHILE node and its condition kernel
    np.testing.assert_array_equal(x.to_numpy(), np.full(64, 5))
    countdown(x, c2)  # another flag array: the same graph reads it through the launch buffer
    expect(nodes=tasks + 2)
    np.testing.assert_array_equal(x.to_numpy(), np.full(64, 12))
    assert int(c1.to_numpy()) == 0 and int(c2.to_numpy()) == 0
    c1.from_numpy(np.array(1, dtype=np.int32))
    countdown(x, c1)  # do-while: the body runs before the flag is read
    np.testing.assert_array_equal(x.to_numpy(), np.full(64, 13))
    if on_cuda():
        assert _core.cuda_graph_fallback_reason() == ""


@qd.kernel(graph=True)
def nested(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0),
           inner: qd.types.ndarray(qd.i32, ndim=0), rounds: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(outer):
        for _ in range(1):
            inner[()] = rounds[()]
        while qd.graph.do_while(inner):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            for _ in range(1):
                inner[()] = inner[()] - 1
        for _ in range(1):
            outer[()] = outer[()] - 1


def test_nested_do_while_rearms_the_inner_loop_each_outer_iteration():
    for launch, (outer, rounds) in enumerate(((3, 4), (2, 5))):
        x = filled(0, (40,))
        nested(x, filled(outer, ()), filled(0, ()), filled(rounds, ()))
        np.testing.assert_array_equal(x.to_numpy(), np.full(40, outer * rounds))
        tasks = prog.get_num_offloaded_tasks_on_last_call()
        assert tasks == 4 or not on_cuda()
        # outer: WHILE node and condition kernel; inner: the kernel re-arming it, WHILE node, condition kernel
        expect(nodes=tasks + 2 + 3)


def test_a_kernel_without_graph_replays_none():
    @qd.kernel
    def plain(x: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0

    x, y = filled(0.0, (8,), qd.f32), filled(0.0, (8,), qd.f32)
    two_loops(x, y, 1.0)
    plain(x)
    nodes, used, cache_size, builds = counters()
    assert (nodes, used) == (0, False)
    assert (cache_size, builds) == ((1, 1) if on_cuda() else (0, 0))
    np.testing.assert_array_equal(x.to_numpy(), np.full(8, 2.0))


def test_reset_drops_the_graphs():
    x, y = filled(0.0, (8,), qd.f32), filled(0.0, (8,), qd.f32)
    two_loops(x, y, 1.0)
    expect(nodes=2)
    qd.reset()
    qd.init()
    assert counters() == (0, False, 0, 0)
    x, y = filled(0.0, (8,), qd.f32), filled(0.0, (8,), qd.f32)
    two_loops(x, y, 1.0)
    expect(nodes=2)
    np.testing.assert_array_equal(y.to_numpy(), np.full(8, 2.0))


@qd.kernel(graph=True, checkpoints=True)
def yielding(x: qd.types.ndarray(qd.i32, ndim=1), counter: qd.types.ndarray(qd.i32, ndim=0),
             flag: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(counter):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1
        with qd.checkpoint(1, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + 10
                if x[i] == 22 and i == 0:
                    flag[()] = 1
        for _ in range(1):
            counter[()] = counter[()] - 1


def test_a_yield_ends_the_replayed_loop_and_resume_continues_it():
    x, counter, flag = filled(0, (16,)), filled(4, ()), filled(0, ())
    status = yielding(x, counter, flag)
    assert status.yielded and status.checkpoint == 1
    np.testing.assert_array_equal(x.to_numpy(), np.full(16, 22))  # two passes, the second yielded
    assert int(counter.to_numpy()) == 3
    if on_cuda():
        assert prog.get_graph_cache_used_on_last_call()
    flag.from_numpy(np.array(0, dtype=np.int32))
    status = yielding.resume(x, counter, flag, from_checkpoint=1)
    assert not status.yielded
    assert int(counter.to_numpy()) == 0
    np.testing.assert_array_equal(x.to_numpy(), np.full(16, 22 + 10 + 11 * 2))  # resumed: the first pass skips checkpoint 0


@qd.kernel(graph=True)
def runaway(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(c):  # c never changes: only the failed bounds check ends the loop
        for i in range(x.shape[0]):
            x[i + 1] = 1


def test_a_failed_debug_check_ends_the_replayed_loop_and_raises():
    qd.reset()
    qd.init(debug=True)
    x = filled(0, (8,))
    with pytest.raises(IndexError, match="out of bound"):
        runaway(x, filled(1, ()))
    if on_cuda():  # the condition kernel read the error flag and left the WHILE node
        assert prog.get_graph_cache_used_on_last_call()


_OLD_DRIVER = """
import os
os.environ["QD_EMULATED_DRIVER_VERSION"] = "12030"  # CUDA 12.3: no conditional nodes
import numpy as np
import quadrants as qd
from quadrants.lang import impl
from quadrants.runtime import _core
from test_cuda_graph import countdown, two_loops
qd.init(arch=qd.cuda)
prog = impl.get_runtime().prog
x, c = qd.ndarray(qd.i32, shape=(8,)), qd.ndarray(qd.i32, shape=())
c.from_numpy(np.array(3, dtype=np.int32))
countdown(x, c)
assert (x.to_numpy() == 3).all() and int(c.to_numpy()) == 0
assert not prog.get_graph_cache_used_on_last_call() and prog.get_graph_num_nodes_on_last_call() == 0
assert "12.4" in _core.cuda_graph_fallback_reason(), _core.cuda_graph_fallback_reason()
y, z = qd.ndarray(qd.f32, shape=(8,)), qd.ndarray(qd.f32, shape=(8,))
two_loops(y, z, 1.0)  # no loops: still a graph
assert prog.get_graph_cache_used_on_last_call() and prog.get_graph_num_nodes_on_last_call() == 2
assert _core.cuda_graph_fallback_reason() == ""
print("host loop on CUDA 12.3")
"""


def test_an_older_driver_runs_do_while_on_the_host(tmp_path):
    assert "host loop on CUDA 12.3" in run_on_cuda_emulation(_OLD_DRIVER, tmp_path)


_ON_EMULATION = """
import numpy as np
import quadrants as qd
from quadrants.lang import impl
from test_cuda_graph import countdown
qd.init(arch=qd.cuda)
prog = impl.get_runtime().prog
x, c = qd.ndarray(qd.i32, shape=(8,)), qd.ndarray(qd.i32, shape=())
for n in (3, 6):
    c.from_numpy(np.array(n, dtype=np.int32))
    countdown(x, c)
assert (x.to_numpy() == 9).all()
assert prog.get_graph_cache_used_on_last_call() and prog.get_graph_num_nodes_on_last_call() == 4
assert prog.get_graph_cache_size() == 1 and prog.get_graph_total_builds() == 1
print("conditional node on the emulation")
"""


def test_do_while_replays_a_conditional_node_on_the_emulation(tmp_path):
    assert "conditional node on the emulation" in run_on_cuda_emulation(_ON_EMULATION, tmp_path)


def test_nvrtc_compiles_graph_kernels_and_the_condition_kernel():
    """NVRTC (the real one in CPU runs where it is installed, the emulated one on the emulation): a graph kernel's
    tasks read their arguments through a pointer, and its do_while loops get the relocatable condition kernel."""
    if not _core.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    plain = _core.compile_kernel_cuda(two_loops.export_ir(filled(0.0, (4,), qd.f32), filled(0.0, (4,), qd.f32), 1.0),
                                      9, 0)
    assert plain.graph and not plain.args_by_value and plain.condition["image_bytes"] == 0
    looped = _core.compile_kernel_cuda(countdown.export_ir(filled(0, (4,)), filled(1, ())), 9, 0)
    assert looped.graph and not looped.args_by_value
    condition = looped.condition
    assert condition["image_bytes"] > 0, condition["unavailable"]
    assert condition["unavailable"] == ""
