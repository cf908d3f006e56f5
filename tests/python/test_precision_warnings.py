# tests/python/test_precision_warnings.py: a statement that stores a value into a narrower type warns when the
# kernel compiles, with upstream's words ("Assign may lose precision: f32 <- f64") at the statement's own line.
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.kernels.pitfalls import PrecisionWarning


def compile_warnings(kernel, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel(*args)
    return [w for w in caught if issubclass(w.category, PrecisionWarning) and "may lose precision" in str(w.message)]


def test_f64_added_into_a_default_fp_local_warns_at_its_line():
    @qd.kernel
    def total(x: qd.types.ndarray(dtype=qd.f64, ndim=1)) -> qd.f64:
        s = 0.0
        for i in x:
            s += x[i]  # the line the warning names
        return s

    caught = compile_warnings(total, np.full(4, 0.1))
    assert len(caught) == 1
    assert "Kernel 'total': Atomic add may lose precision: f32 <- f64" in str(caught[0].message)
    assert caught[0].filename == __file__
    with open(__file__) as f:
        assert "the line the warning names" in f.read().splitlines()[caught[0].lineno - 1]


def test_assign_and_store_into_narrower_types_warn():
    @qd.kernel
    def narrow(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in x:
            n = 0
            n = x[i] * 2.0
            out[i] = x[i] + n

    caught = compile_warnings(narrow, np.ones(3, np.float32), np.zeros(3, np.int32))
    messages = sorted(str(w.message).split(".")[0] for w in caught)
    assert messages == ["Kernel 'narrow': Assign may lose precision: i32 <- f32"] * 2


def test_widening_and_same_type_statements_are_silent():
    @qd.kernel
    def fine(x: qd.types.ndarray(dtype=qd.f64, ndim=1), k: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.f64:
        s = qd.f64(0.0)
        c = 0.0
        for i in x:
            s += x[i]
            c += k[i]  # i32 into f32: promotion gives f32, as upstream does not warn either
            k[i] = k[i] + 1
        return s + c

    assert compile_warnings(fine, np.ones(3), np.zeros(3, np.int32)) == []


def test_each_statement_warns_once_however_often_it_compiles():
    @qd.kernel
    def scaled(x: qd.types.ndarray(ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in x:
            y[i] = x[i] * 2

    assert len(compile_warnings(scaled, np.ones(3), np.zeros(3, np.float32))) == 1  # f32 <- f64
    strided = qd.from_dlpack(np.ones(3)[::2])  # kernels refuse strided numpy views themselves, as upstream
    assert compile_warnings(scaled, strided, np.zeros(2, np.float32)) == []  # a new specialization


def test_the_warning_can_be_made_an_error():
    @qd.kernel
    def narrow_ints(x: qd.types.ndarray(dtype=qd.i64, ndim=1), y: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in x:
            y[i] = x[i] // 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", PrecisionWarning)
        with pytest.raises(PrecisionWarning, match=r"Assign may lose precision: i32 <- i64"):
            narrow_ints(np.ones(2, np.int64), np.zeros(2, np.int32))


def test_truth_values_stored_as_u1_are_silent():
    flags = qd.field(qd.u1, shape=4)

    @qd.kernel
    def mark(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in flags:
            flags[i] = not (x[i] > 0.5 or x[i] < -0.5)  # comparisons and `not` give i32 here, u1 upstream

    assert compile_warnings(mark, np.zeros(4, np.float32)) == []
    assert flags.to_numpy().tolist() == [1, 1, 1, 1]


def test_literals_the_target_holds_are_silent_and_others_warn():
    mask = qd.field(qd.u8, shape=4)
    sparse = qd.field(qd.f32)
    qd.root.pointer(qd.i, 2).dense(qd.i, 2).place(sparse)  # stores activate cells through u8 masks

    @qd.kernel
    def fits(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in mask:
            mask[i] = 1
            x[i] = 3.0
            sparse[i] = 2

    @qd.kernel
    def does_not_fit(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in mask:
            mask[i] = 300
            x[i] = 2.5

    assert compile_warnings(fits, np.zeros(4, np.int32)) == []
    caught = compile_warnings(does_not_fit, np.zeros(4, np.int32))
    assert sorted(str(w.message).split(".")[0] for w in caught) == [
        "Kernel 'does_not_fit': Assign may lose precision: i32 <- f32",
        "Kernel 'does_not_fit': Assign may lose precision: u8 <- i32"]
