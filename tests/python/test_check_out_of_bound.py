# tests/python/test_check_out_of_bound.py: check_out_of_bound=True checks bounds only; debug=True checks everything.
#
# Upstream documents check_out_of_bound as "the field out-of-bounds check on tensor indexing without turning on
# the rest of debug mode", and debug as the full suite (bounds included). Here check_out_of_bound alone compiles
# kernels with the IR option (bounds 1) (docs/IR.md): array, field, shared-array and runtime vector indices are
# checked, while a kernel's own asserts, integer overflow reports, the negative-exponent check of integer pow and
# Tape(validation=True) stay off. (Upstream 1.3.3 on the CPU stops the kernel at a bad index under
# check_out_of_bound alone without reporting it; here the error is raised, as under debug.)
# qd.init(arch=qd.cpu) runs on CUDA under QD_TEST_ARCH=cuda (conftest.py), the driver emulation included.
import warnings

import numpy as np
import pytest

import quadrants as qd

MODES = {"bounds": {"check_out_of_bound": True}, "debug": {"debug": True}, "release": {}}


@pytest.fixture(autouse=True)
def _reset():
    yield
    qd.reset()


def _init(mode):
    qd.init(arch=qd.cpu, **MODES[mode])


@qd.kernel
def positive(v: qd.i32) -> qd.i32:
    assert v > 0, "v must be positive, got %d" % v
    return v


@qd.kernel
def read_at(a: qd.types.ndarray(dtype=qd.f32, ndim=1), i: qd.i32) -> qd.f32:
    return a[i]


@qd.kernel
def write_then_mark(a: qd.types.ndarray(dtype=qd.f32, ndim=1), mark: qd.types.ndarray(dtype=qd.i32, ndim=1),
                    i: qd.i32):
    a[i] = 5.0
    mark[0] = 1


@qd.kernel
def double(v: qd.i32) -> qd.i32:
    return v * 2


@qd.kernel
def power(a: qd.i32, b: qd.i32) -> qd.i32:
    return a**b


@qd.kernel
def vector_entry(k: qd.i32) -> qd.i32:
    v = qd.Vector([1, 2, 3])
    return v[k]


@pytest.mark.parametrize("mode", ["bounds", "debug"])
def test_an_out_of_bounds_index_raises_under_both(mode):
    _init(mode)
    a = np.zeros(4, np.float32)
    assert read_at(a, 3) == 0.0
    with pytest.raises(IndexError, match=r"index \(4,\) is out of bounds for 'a' of shape \(4,\)"):
        read_at(a, 4)
    with pytest.raises(IndexError, match=r"index \(-1,\) is out of bounds"):
        read_at(a, -1)


@pytest.mark.parametrize("mode", ["bounds", "debug"])
def test_the_failed_access_stops_the_kernel_before_later_writes(mode):
    _init(mode)
    a, mark = np.zeros(4, np.float32), np.zeros(1, np.int32)
    with pytest.raises(IndexError):
        write_then_mark(a, mark, 100)
    assert mark[0] == 0 and not a.any()


def test_without_checks_nothing_is_raised():
    _init("release")
    assert positive(-1) == -1
    assert double(2**30 + 5) == -2147483638


def test_an_assert_fires_under_debug_only():
    _init("bounds")
    assert positive(-3) == -3  # as upstream: check_out_of_bound alone does not check asserts
    qd.init(arch=qd.cpu, debug=True)
    with pytest.raises(AssertionError, match="v must be positive, got -3"):
        positive(-3)
    assert positive(3) == 3


@pytest.mark.parametrize("mode", ["bounds", "debug"])
def test_a_field_index_is_checked_under_both(mode):
    _init(mode)
    x = qd.field(qd.i32, shape=4)

    @qd.kernel
    def read(i: qd.i32) -> qd.i32:
        return x[i]

    assert read(3) == 0
    with pytest.raises(IndexError, match="out of bounds"):
        read(4)


@pytest.mark.parametrize("mode", ["bounds", "debug"])
def test_a_runtime_index_into_a_local_vector_is_checked_under_both(mode):
    _init(mode)
    assert vector_entry(2) == 3
    with pytest.raises(AssertionError, match="Out of bound access"):
        vector_entry(3)


def test_overflow_is_reported_under_debug_only(capfd):
    _init("bounds")
    assert double(2**30 + 5) == -2147483638
    qd.sync()
    assert "overflow" not in capfd.readouterr().out
    qd.init(arch=qd.cpu, debug=True)
    assert double(2**30 + 5) == -2147483638
    qd.sync()
    assert "Multiplication overflow detected" in capfd.readouterr().out


def test_a_negative_integer_exponent_is_an_error_under_debug_only():
    _init("bounds")
    assert power(2, -1) == 0  # release mode's value (docs/IR.md)
    qd.init(arch=qd.cpu, debug=True)
    with pytest.raises(AssertionError, match=r"Negative exponent in pow\(int, int\) is not allowed"):
        power(2, -1)


def test_tape_validation_needs_debug_not_check_out_of_bound():
    _init("bounds")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.ad.Tape(validation=True)
    assert any("Debug mode is disabled" in str(w.message) for w in caught)
    qd.init(arch=qd.cpu, debug=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert qd.ad.Tape(validation=True).validating
    assert not caught


def test_a_shared_array_index_is_checked_under_check_out_of_bound():
    _init("bounds")

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), bad: qd.i32):
        qd.loop_config(block_dim=32)
        for i in range(32):
            sh = qd.simt.block.SharedArray((32,), qd.i32)
            sh[i] = i
            qd.simt.block.sync()
            a[i] = sh[bad if i == 5 else i]

    a = np.zeros(32, np.int32)
    k(a, 31)
    assert a[5] == 31
    with pytest.raises(IndexError, match=r"index \(40,\) is out of bounds for a qd.simt.block.SharedArray"):
        k(a, 40)
        qd.sync()


def test_the_ir_says_which_checks_a_kernel_has():
    # (bounds 1) alone under check_out_of_bound; under debug, (debug 1) implies it (docs/IR.md).
    _init("bounds")
    text = read_at.export_ir(np.zeros(2, np.float32), 0)
    assert "(debug 0)" in text and "(bounds 1)" in text
    qd.init(arch=qd.cpu, debug=True)
    text = read_at.export_ir(np.zeros(2, np.float32), 0)
    assert "(debug 1)" in text and "(bounds" not in text
    qd.init(arch=qd.cpu)
    text = read_at.export_ir(np.zeros(2, np.float32), 0)
    assert "(debug 0)" in text and "(bounds" not in text


def test_cfg_reports_both_options_as_upstream():
    _init("bounds")
    assert (qd.cfg.debug, qd.cfg.check_out_of_bound) == (False, True)
    qd.init(arch=qd.cpu, debug=True)
    assert (qd.cfg.debug, qd.cfg.check_out_of_bound) == (True, True)
