# tests/python/test_kernel_impl_steps.py: upstream's per-call steps (quadrants.lang.kernel_impl.Kernel.ensure_compiled,
# materialize, launch_kernel), run for every kernel call while a program has replaced one (kernels/observed_launch.py).
import pytest

import quadrants as qd
from quadrants.kernels import kernel as kernels
from quadrants.lang import kernel_impl
from quadrants.types.enums import AutodiffMode


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu, offline_cache=False)


@pytest.fixture
def launches(monkeypatch):
    """Replaces launch_kernel with one that records (kernel name, key, compiled_kernel_data) and launches."""
    seen = []
    original = kernel_impl.Kernel.launch_kernel

    def launch_kernel(self, key, t_kernel, compiled_kernel_data, *args, qd_stream=None):
        seen.append((self.func.__name__, key, compiled_kernel_data))
        return original(self, key, t_kernel, compiled_kernel_data, *args, qd_stream=qd_stream)

    monkeypatch.setattr("quadrants.lang.kernel_impl.Kernel.launch_kernel", launch_kernel)
    return seen


def test_every_call_runs_the_steps_while_one_is_replaced(launches):
    @qd.kernel
    def inc(x: qd.types.ndarray(), by: qd.i32):  # dispatched in C++
        x[0] += by

    @qd.kernel
    def add(x: qd.template(), by: qd.i32):  # dispatched in Python
        x[None] += by

    a, f = qd.ndarray(qd.i32, shape=(1,)), qd.field(qd.i32, shape=())
    for by in (1, 2):
        inc(a, by)
        add(f, by=by)
    assert a.to_numpy().tolist() == [3] and f[None] == 3
    names = [name for name, _, _ in launches]
    assert names == ["inc", "add", "inc", "add"]
    (_, key, first), (_, _, _), (_, again, second), _ = launches
    assert key == (inc.func, 0, AutodiffMode.NONE) and again == key
    assert first is None  # compiled for this call
    assert second is inc.compiled_kernel_data_by_key[next(iter(inc.compiled_kernel_data_by_key))]
    assert launches[1][2] is None and launches[3][2] is not None


def test_restoring_the_steps_takes_calls_straight_to_the_launchers(monkeypatch):
    @qd.kernel
    def inc(x: qd.types.ndarray()):
        x[0] += 1

    calls = []
    original = kernel_impl.Kernel.launch_kernel
    monkeypatch.setattr(kernel_impl.Kernel, "launch_kernel",
                        lambda self, *args, **kwargs: calls.append(1) or original(self, *args, **kwargs))
    a = qd.ndarray(qd.i32, shape=(1,))
    inc(a)
    assert "__call__" in type(inc).__dict__
    monkeypatch.undo()
    assert "__call__" not in type(inc).__dict__ and kernel_impl.Kernel.launch_kernel is original
    inc(a)
    assert calls == [1] and a.to_numpy().tolist() == [2]


def test_a_launch_step_that_does_not_launch_runs_nothing(monkeypatch):
    @qd.kernel
    def inc(x: qd.types.ndarray()):
        x[0] += 1

    monkeypatch.setattr(kernel_impl.Kernel, "launch_kernel", lambda self, *args, **kwargs: None)
    a = qd.ndarray(qd.i32, shape=(1,))
    inc(a)
    assert a.to_numpy().tolist() == [0]


def test_materialize_makes_the_entry_of_a_new_specialization_only(monkeypatch):
    grew = []
    original = kernel_impl.Kernel.materialize

    def materialize(self, *args, **kwargs):
        before = len(self.materialized_kernels)
        original(self, *args, **kwargs)
        grew.append(len(self.materialized_kernels) - before)

    monkeypatch.setattr(kernel_impl.Kernel, "materialize", materialize)

    @qd.data_oriented(template_primitives=False)
    class Sim:
        def __init__(self):
            self.k = 1
            self.out = qd.ndarray(qd.i32, shape=(1,))

    @qd.kernel
    def step(s: qd.template()):
        s.out[0] = s.k * 10

    sim = Sim()
    for k in (1, 2, 3):
        sim.k = k
        step(sim)
    step(Sim())
    assert grew == [1, 0, 0, 1] and sim.out.to_numpy().tolist() == [30]


def test_compiled_kernel_data_is_found_ready_in_a_later_session(tmp_path, launches):
    @qd.data_oriented
    class State:
        def __init__(self, x):
            self.x = x

    @qd.kernel
    def fill(s: qd.template()):
        for i in range(4):
            s.x[i] = i

    found = []
    for _ in range(2):
        qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path), offline_cache=True)
        for dtype in (qd.i32, qd.f32):
            fill(State(qd.ndarray(dtype, shape=(4,))))
            found.append(launches[-1][2] is not None)
    assert found == [False, False, True, True]


def test_kernels_made_while_observing_are_observed(launches):
    @qd.kernel
    def late(x: qd.types.ndarray()):
        x[0] = 5

    assert kernels._fast_kernel_class.__dict__.get("__call__") is not None
    a = qd.ndarray(qd.i32, shape=(1,))
    late(a)
    assert [name for name, _, _ in launches] == ["late"] and a.to_numpy().tolist() == [5]
