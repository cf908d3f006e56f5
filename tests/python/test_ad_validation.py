# tests/python/test_ad_validation.py: qd.ad.Tape(validation=True), the check of the global data access rule.
#
# A kernel recorded on a validating Tape that overwrites an element of an array with a gradient after it
# (or a kernel recorded before it) read that element raises QuadrantsAssertionError before the write;
# programs that keep the rule run as without validation and get the same gradients. Arch-neutral.
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.types.enums import AutodiffMode


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64, debug=True)
    yield
    qd.reset()


N = 8


def _fields():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    y = qd.field(qd.f64, shape=N, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    x.from_numpy(np.linspace(0.5, 2.0, N))
    return x, y, loss


def test_read_then_overwrite_in_one_kernel_raises():
    x, _, loss = _fields()

    @qd.kernel
    def square_in_place():
        for i in x:
            loss[None] += x[i] * x[i]
            x[i] = 0.0

    # the message names the line and the file of the write
    with pytest.raises(qd.QuadrantsAssertionError,
                       match=r"global data access rule.*'x' is overwritten at line \d+ of \S*test_ad_validation\.py"):
        with qd.ad.Tape(loss=loss, validation=True):
            square_in_place()
    # the assertion stops the kernel before the write of the element it caught
    assert np.count_nonzero(x.to_numpy()) > 0


def test_update_in_place_raises():
    x, _, loss = _fields()

    @qd.kernel
    def step():
        for i in x:
            x[i] = x[i] * 2.0  # x[i] = x[i] + dt * v[i] style update: reads, then overwrites

    with pytest.raises(qd.QuadrantsAssertionError, match="'x' is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            step()


def test_overwrite_in_a_later_kernel_raises():
    x, y, loss = _fields()

    @qd.kernel
    def read_x():
        for i in x:
            loss[None] += qd.sin(x[i])

    @qd.kernel
    def write_x():
        for i in x:
            x[i] = 1.0

    with pytest.raises(qd.QuadrantsAssertionError, match="'x' is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            read_x()
            write_x()


def test_ndarray_arguments_and_upstream_pattern():
    x = qd.ndarray(qd.f64, shape=N, needs_grad=True)
    b = qd.ndarray(qd.f64, shape=(1,), needs_grad=True)
    loss = qd.ndarray(qd.f64, shape=(1,), needs_grad=True)
    x.from_numpy(np.arange(N, dtype=np.float64))
    b.from_numpy(np.array([10.0]))

    @qd.kernel
    def broke_rule(x: qd.types.ndarray(), b: qd.types.ndarray(), loss: qd.types.ndarray()):
        loss[0] = x[1] * b[0]
        b[0] += 100  # an atomic update of an element that was read

    with pytest.raises(qd.QuadrantsAssertionError, match="'b' is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            broke_rule(x, b, loss)


def _pipeline(validation):
    x, y, loss = _fields()

    @qd.kernel
    def stage_one():
        for i in x:
            y[i] = qd.sin(x[i]) * x[i]

    @qd.kernel
    def stage_two():
        for i in y:
            loss[None] += y[i] * y[i]

    with qd.ad.Tape(loss=loss, validation=validation):
        stage_one()
        stage_two()
    return loss.to_numpy(), x.grad.to_numpy()


def test_correct_pipeline_passes_with_the_same_gradients():
    loss_checked, grad_checked = _pipeline(True)
    loss_plain, grad_plain = _pipeline(False)
    x = np.linspace(0.5, 2.0, N)
    y = np.sin(x) * x
    np.testing.assert_allclose(loss_checked, np.sum(y * y))
    np.testing.assert_allclose(grad_checked, 2 * y * (np.cos(x) * x + np.sin(x)), rtol=1e-12)
    np.testing.assert_array_equal(grad_checked, grad_plain)
    assert loss_checked == loss_plain


def test_marks_start_empty_on_each_tape():
    x, y, loss = _fields()

    @qd.kernel
    def read_x():
        for i in x:
            loss[None] += x[i]

    @qd.kernel
    def write_x():
        for i in x:
            x[i] = 3.0

    with qd.ad.Tape(loss=loss, validation=True):
        read_x()
    write_x()  # outside any Tape: no check
    with qd.ad.Tape(loss=loss, validation=True):  # a new Tape: nothing read yet
        write_x()
        read_x()
    assert loss.to_numpy() == 3.0 * N
    # the loss reads only the constants write_x stored, so it does not depend on x from before the Tape
    np.testing.assert_array_equal(x.grad.to_numpy(), np.zeros(N))


def test_unchecked_arrays_and_atomic_accumulation_pass():
    x, y, loss = _fields()
    counts = qd.field(qd.i32, shape=N)  # no gradient: not checked

    @qd.kernel
    def accumulate():
        for i in x:
            counts[i] = counts[i] + 1
            loss[None] += x[i]  # atomic adds to an element never read
            loss[None] += 2.0 * x[i]

    with qd.ad.Tape(loss=loss, validation=True):
        accumulate()
    np.testing.assert_array_equal(x.grad.to_numpy(), np.full(N, 3.0))


def test_select_arm_not_taken_is_not_marked():
    x, y, loss = _fields()

    @qd.kernel
    def shifted():
        for i in x:
            y[i] = x[i - 1] if i > 0 else 0.0  # i = 0 takes the other arm: no mark at x[-1] (an IndexError)

    @qd.kernel
    def overwrite(k: qd.i32):
        x[k] = 5.0

    # recorded without a loss: the adjoint is not run (reverse_ad loads both arms of a select, x[-1] included)
    with qd.ad.Tape(validation=True):
        shifted()
        overwrite(N - 1)  # x[N - 1] was never read (x[i - 1] stops at N - 2)
    with pytest.raises(qd.QuadrantsAssertionError, match="'x' is overwritten"):
        with qd.ad.Tape(validation=True):
            shifted()
            overwrite(N - 2)


def test_autodiff_mode_during_and_after_recording():
    x, y, loss = _fields()

    @qd.kernel
    def read_x():
        for i in x:
            loss[None] += x[i]

    assert read_x.autodiff_mode == AutodiffMode.NONE
    with qd.ad.Tape(loss=loss, validation=True) as tape:
        read_x()
        assert [f.autodiff_mode for f, _ in tape.calls] == [AutodiffMode.VALIDATION]
    assert read_x.autodiff_mode == AutodiffMode.NONE
    assert len(tape.modes) == 1


def test_grad_replaced_functions_are_not_checked():
    x, y, loss = _fields()

    @qd.kernel
    def read_and_overwrite():
        for i in x:
            loss[None] += x[i]
            x[i] = 0.0

    @qd.ad.grad_replaced
    def custom():
        read_and_overwrite()

    @qd.ad.grad_for(custom)
    def custom_grad():
        pass

    with qd.ad.Tape(loss=loss, validation=True):
        custom()


def test_template_kernel_checks_the_array_it_is_given():
    x, y, loss = _fields()

    @qd.kernel
    def double(a: qd.template()):
        for i in a:
            a[i] = a[i] * 2.0

    counts = qd.field(qd.f64, shape=N)  # no gradient: not checked
    with qd.ad.Tape(loss=loss, validation=True):
        double(counts)
    with pytest.raises(qd.QuadrantsAssertionError, match="'a' is overwritten|is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            double(y)


def test_without_debug_warns_and_checks_nothing():
    qd.init(arch=qd.cpu, default_fp=qd.f64, debug=False)
    x, _, loss = _fields()

    @qd.kernel
    def step():
        for i in x:
            x[i] = x[i] * 2.0

    with pytest.warns(Warning, match=r"Debug mode is disabled, autodiff valid check will not work"):
        with qd.ad.Tape(loss=loss, validation=True):
            step()


def test_validation_off_builds_no_check(compiles):
    x, _, loss = _fields()

    @qd.kernel
    def step():
        for i in x:
            loss[None] += x[i]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with qd.ad.Tape(loss=loss):
            step()
    with qd.ad.Tape(loss=loss, validation=True):
        step()
    plain = [t for t in compiles if "(validate" not in t and "(adjoint" not in t]
    checked = [t for t in compiles if "(validate" in t]
    assert len(plain) == 1 and "__read" not in plain[0]  # the kernel's own build, used by the first Tape
    assert len(checked) == 1 and "u8" in checked[0] and "__read" in checked[0]


def test_torch_tensors_that_require_grad_are_checked():
    torch = pytest.importorskip("torch")
    x = torch.linspace(0.5, 2.0, N, dtype=torch.float64, requires_grad=True)
    loss = torch.zeros(1, dtype=torch.float64, requires_grad=True)

    @qd.kernel
    def sum_squares(x: qd.types.ndarray(), loss: qd.types.ndarray()):
        for i in range(x.shape[0]):
            loss[0] += x[i] * x[i]

    @qd.kernel
    def scale(x: qd.types.ndarray()):
        for i in range(x.shape[0]):
            x[i] = x[i] * 0.5

    with qd.ad.Tape(loss=loss, validation=True):
        sum_squares(x, loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())
    with pytest.raises(qd.QuadrantsAssertionError, match="'x' is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            scale(x)
