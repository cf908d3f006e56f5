# tests/python/test_checkpoint_ours.py: qd.checkpoint yield/resume in @qd.kernel(graph=True, checkpoints=True).
#
# Each launch's effect is counted per stage (+1, +10, +100 into one array), so a skipped, repeated or extra stage
# shows in the sum. The IR checks make sure guarded loops stay parallel_fors (tasks on CUDA); the CUDA checks compile
# the kernels with NVRTC and run them on the driver emulation, where yields go through CUDA's returned-value path.
from enum import IntEnum

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core
from emulated_cuda import run_on_cuda_emulation

N = 16


class Stage(IntEnum):
    LOAD = 3
    SIM = 5


def i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


@qd.kernel(graph=True, checkpoints=True)
def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0),
           seen: qd.types.ndarray(qd.i32, ndim=0)):
    seen[()] = seen[()] + 1  # outside every checkpoint: each launch, resumed ones too
    for i in range(x.shape[0]):  # implicit checkpoint 0
        x[i] = x[i] + 1
    with qd.checkpoint(Stage.LOAD, yield_on=flag):  # checkpoint 1
        for i in range(x.shape[0]):
            x[i] = x[i] + 10
    for i in range(x.shape[0]):  # implicit checkpoint 2: skipped after a yield
        x[i] = x[i] + 100


@qd.kernel(graph=True, checkpoints=True)
def looped(x: qd.types.ndarray(qd.i32, ndim=1), counter: qd.types.ndarray(qd.i32, ndim=0),
           flag: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(counter):
        for i in range(x.shape[0]):  # implicit 0
            x[i] = x[i] + 1
        with qd.checkpoint(Stage.SIM, yield_on=flag):  # 1: the body raises the flag on the second pass
            for i in range(x.shape[0]):
                x[i] = x[i] + 10
                if x[i] == 22 and i == 0:
                    flag[()] = 1
        for _ in range(1):  # implicit 2
            counter[()] = counter[()] - 1


def test_a_launch_without_yield_runs_every_stage():
    x, flag, seen = i32(0, (N,)), i32(0), i32(0)
    status = staged(x, flag, seen)
    assert not status.yielded and status.checkpoint is None
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 111))


def test_a_yield_skips_what_follows_and_names_its_checkpoint():
    x, flag, seen = i32(0, (N,)), i32(1), i32(0)
    status = staged(x, flag, seen)
    assert status.yielded and status.checkpoint is Stage.LOAD
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 11))
    assert int(flag.to_numpy()) == 1  # the flag is the user's: never cleared


def test_resume_skips_the_checkpoints_before_its_label_but_not_bare_statements():
    x, flag, seen = i32(0, (N,)), i32(0), i32(0)
    status = staged.resume(x, flag, seen, from_checkpoint=Stage.LOAD)
    assert not status.yielded
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 110))
    assert int(seen.to_numpy()) == 1
    status = staged.resume(x, flag, seen, from_checkpoint=int(Stage.LOAD))  # the plain int names it too
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 220))


def test_a_yield_leaves_the_do_while_and_resume_continues_it():
    x, counter, flag = i32(0, (N,)), i32(4), i32(0)
    status = looped(x, counter, flag)
    # pass 1: 11, counter 3; pass 2: 22, the flag rises: leave, counter still 3
    assert status.yielded and status.checkpoint is Stage.SIM
    assert int(counter.to_numpy()) == 3
    expected = np.full(N, 22)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    flag.from_numpy(np.array(0, dtype=np.int32))
    x.from_numpy(np.full(N, 100, dtype=np.int32))  # so that the flag does not rise again
    status = looped.resume(x, counter, flag, from_checkpoint=Stage.SIM)
    # resumed pass skips implicit 0 (+10 only); the 2 passes after it run whole (+11 each)
    assert not status.yielded and int(counter.to_numpy()) == 0
    np.testing.assert_array_equal(x.to_numpy(), np.full(N, 100 + 10 + 2 * 11))


def test_the_checkpoint_table_follows_source_order():
    staged(i32(0, (N,)), i32(0), i32(0))
    assert staged._primal.checkpoint_user_labels_by_cp_id == [None, Stage.LOAD, None]
    assert staged.checkpoint_yield_on_args == [None, "flag", None]
    assert staged.checkpoint_yield_on_cpp_arg_ids == [-1, 1, -1]


def test_guarded_loops_stay_parallel():
    ir = staged.export_ir(i32(0, (N,)), i32(0), i32(0), 0)
    assert ir.count("(parallel_for") == 3
    assert ir.count("(select (bin le (var qd_resume_point) (const i32 ") == 3
    assert "(return (const i32 1))" in ir and "(return (const i32 -1))" in ir


def test_kernels_without_yield_on_return_none():
    @qd.kernel(graph=True, checkpoints=True)
    def plain(x: qd.types.ndarray(qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1

    x = i32(0, (N,))
    assert plain(x) is None
    with pytest.raises(RuntimeError, match="only valid for kernels that contain at least one"):
        plain.resume(x, from_checkpoint=0)


def test_data_oriented_methods_resume():
    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.x = i32(0, (N,))
            self.flag = i32(1)

        @qd.kernel(graph=True, checkpoints=True)
        def step(self):
            with qd.checkpoint(0, yield_on=self.flag):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 1
            with qd.checkpoint(1, yield_on=self.flag):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 10

    sim = Sim()
    assert sim.step().checkpoint == 0
    sim.flag.from_numpy(np.array(0, dtype=np.int32))
    assert not sim.step.resume(from_checkpoint=1).yielded
    np.testing.assert_array_equal(sim.x.to_numpy(), np.full(N, 11))


# ---- CUDA ------------------------------------------------------------------------------------------------------
def test_cuda_compiles_the_guards_and_yields():
    if not _core.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    compiled = _core.compile_kernel_cuda(looped.export_ir(i32(0, (N,)), i32(1), i32(0), 0), 9, 0)
    assert sum(1 for task in compiled.tasks if task[1]) == 3  # the three guarded loops stay parallel tasks


_EMULATED_RUN = """
import quadrants as qd
qd.init(arch=qd.cuda)
from tests.python import test_checkpoint_ours as t
t.test_a_launch_without_yield_runs_every_stage()
t.test_a_yield_skips_what_follows_and_names_its_checkpoint()
t.test_resume_skips_the_checkpoints_before_its_label_but_not_bare_statements()
t.test_a_yield_leaves_the_do_while_and_resume_continues_it()
print("ran on", qd.lang.impl.current_cfg().arch)
"""


def test_runs_on_the_cuda_driver_emulation(tmp_path):
    assert "ran on qd.cuda" in run_on_cuda_emulation(_EMULATED_RUN, tmp_path)


# ---- errors ----------------------------------------------------------------------------------------------------
def test_errors_name_what_is_wrong():
    @qd.kernel(graph=True, checkpoints=True)
    def nested(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.checkpoint(0, yield_on=flag):
            with qd.checkpoint(1, yield_on=flag):
                for i in range(x.shape[0]):
                    x[i] = 1

    @qd.kernel(graph=True, checkpoints=True)
    def in_if(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        if x[0] == 0:
            with qd.checkpoint(0, yield_on=flag):
                for i in range(x.shape[0]):
                    x[i] = 1

    @qd.kernel(graph=True, checkpoints=True)
    def f32_flag(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.f32, ndim=0)):
        with qd.checkpoint(0, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = 1

    x, flag = i32(0, (N,)), i32(0)
    with pytest.raises(qd.QuadrantsSyntaxError, match="cannot be nested"):
        nested(x, flag)
    with pytest.raises(qd.QuadrantsSyntaxError, match="kernel top level"):
        in_if(x, flag)
    with pytest.raises(qd.QuadrantsTypeError, match=r"needs a 0-d qd.i32 ndarray, but 'flag' is a 0-d f32"):
        f32_flag(x, qd.ndarray(qd.f32, shape=()))
    with pytest.raises(RuntimeError, match=r"does not match any qd\.checkpoint\(cp_id=\.\.\.\)"):
        staged.resume(x, flag, i32(0), from_checkpoint=99)
    with pytest.raises(RuntimeError, match="must be an int or IntEnum value"):
        staged.resume(x, flag, i32(0), from_checkpoint="LOAD")


def test_a_checkpoints_kernel_cannot_have_a_return_type():
    with pytest.raises(qd.QuadrantsSyntaxError, match="return a qd.GraphStatus"):
        @qd.kernel(graph=True, checkpoints=True)
        def k(x: qd.types.ndarray(qd.i32, ndim=1)) -> qd.i32:
            return 1
