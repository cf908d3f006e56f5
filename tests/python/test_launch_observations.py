# tests/python/test_launch_observations.py: upstream's introspection of a Python-dispatched kernel's last launch:
# launch_observations, _last_launch_key and used_py_dataclass_parameters_by_key_enforcing.
import dataclasses

import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)


@dataclasses.dataclass
class Inner:
    read: qd.types.ndarray()
    ignored: qd.types.ndarray()


@dataclasses.dataclass
class Outer:
    inner: Inner
    scale: qd.i32
    unused: qd.types.ndarray()


def _outer():
    return Outer(Inner(qd.ndarray(qd.i32, (2,)), qd.ndarray(qd.i32, (2,))), 3, qd.ndarray(qd.i32, (2,)))


def test_found_in_memory_is_false_exactly_for_launches_that_compile():
    @qd.kernel
    def k(flag: qd.Template, o: Outer):
        if qd.static(flag):
            o.inner.read[0] += o.scale
        else:
            o.inner.read[1] += 1

    primal = k._primal
    seen = []
    for flag in (False, False, True, False, True):
        o = _outer()
        k(flag, o)
        seen.append((primal._last_launch_key[0], primal.launch_observations.found_kernel_in_materialize_cache))
        assert o.inner.read.to_numpy().tolist() == ([3, 0] if flag else [0, 1])
    keys = [key for key, _ in seen]
    assert [found for _, found in seen] == [False, True, False, True, True]
    assert keys[0] == keys[1] == keys[3] != keys[2] == keys[4]
    used = primal.used_py_dataclass_parameters_by_key_enforcing
    assert used[primal._last_launch_key] == {"__qd_o", "__qd_o__qd_inner", "__qd_o__qd_inner__qd_read",
                                             "__qd_o__qd_scale"}
    k(False, _outer())
    assert used[primal._last_launch_key] == {"__qd_o", "__qd_o__qd_inner", "__qd_o__qd_inner__qd_read"}


def test_a_kernel_keyed_by_nothing_still_tells_hits_from_compiles():
    # Only default values send it through Python: its template key is the empty tuple at every call.
    @qd.kernel
    def k(x: qd.types.ndarray(), v: qd.i32 = 2):
        x[0] += v

    x = qd.ndarray(qd.i32, (1,))
    k(x)
    assert not k._primal.launch_observations.found_kernel_in_materialize_cache
    assert k._primal._last_launch_key == ()
    k(x)
    assert k._primal.launch_observations.found_kernel_in_materialize_cache
    k(qd.ndarray(qd.f32, (1,)))  # a new spec of the same key compiles
    assert not k._primal.launch_observations.found_kernel_in_materialize_cache
    assert x.to_numpy().tolist() == [4]


def test_qd_reset_makes_the_next_launch_compile_again():
    @qd.kernel
    def k(flag: qd.Template, x: qd.types.ndarray()):
        x[0] += 1

    x = qd.ndarray(qd.i32, (1,))
    k(True, x)
    k(True, x)
    assert k._primal.launch_observations.found_kernel_in_materialize_cache
    qd.init(arch=qd.cpu)
    x = qd.ndarray(qd.i32, (1,))
    k(True, x)
    assert not k._primal.launch_observations.found_kernel_in_materialize_cache
