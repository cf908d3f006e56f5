# tests/python/test_pure_kernels.py: @qd.kernel(fastcache=True) / pure=True / @qd.pure kernels are checked for purity
# while translated (frontend/purity.py), as upstream: no number, string or field from outside the parameters.
import enum
import math
import warnings

import pytest

import quadrants as qd

threshold = 3
LIMIT = 7
counts = None


class Mode(enum.IntEnum):
    FAST = 2


class Settings:
    size = 4
    SIZE = 5


settings = Settings()


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu, offline_cache=False)
    yield
    qd.reset()


def test_a_global_number_string_or_field_is_an_error_naming_it():
    @qd.kernel(fastcache=True)
    def reads_number() -> qd.i32:
        return threshold

    with pytest.raises(qd.QuadrantsCompilationError, match=r"\[PURE\.VIOLATION\] Accessing global variable threshold"):
        reads_number()

    label = "x"

    @qd.kernel(pure=True)
    def reads_closure_string():
        print(label)

    with pytest.raises(qd.QuadrantsCompilationError, match="global variable label"):
        reads_closure_string()

    global counts
    counts = qd.field(qd.i32, (4,))

    @qd.func
    def bump():
        counts[0] += 1

    @qd.pure
    @qd.kernel
    def through_a_func():
        bump()

    with pytest.raises(qd.QuadrantsCompilationError, match="global variable counts"):
        through_a_func()

    @qd.kernel(fastcache=True)
    def attribute_of_a_global() -> qd.i32:
        return settings.size

    with pytest.raises(qd.QuadrantsCompilationError, match="global var size from outside function scope"):
        attribute_of_a_global()


def test_uppercase_names_and_static_reads_warn():
    @qd.kernel(fastcache=True)
    def upper() -> qd.i32:
        return LIMIT + settings.SIZE

    with pytest.warns(UserWarning, match=r"\[PURE\.VIOLATION\].*LIMIT") as caught:
        assert upper() == 12
    assert {w.filename for w in caught} == {__file__}  # attributed to the kernel's line

    flag = True

    @qd.kernel(fastcache=True)
    def static_flag() -> qd.i32:
        r = 0
        if qd.static(flag):
            r = 1
        return r

    with pytest.warns(UserWarning, match=r"\[PURE\.VIOLATION\].*flag"):
        assert static_flag() == 1


def test_allowed_reads_and_impure_kernels():
    values = qd.field(qd.i32, (4,))

    @qd.kernel(fastcache=True)
    def allowed(a: qd.template()) -> qd.f32:
        a[0] = Mode.FAST
        return qd.math.pi + math.pi + a[0]

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert abs(allowed(values) - (2 * math.pi + 2)) < 1e-5

    @qd.kernel
    def not_pure() -> qd.i32:
        return threshold

    assert not_pure() == 3


def test_qd_pure_marks_a_kernel_and_refuses_other_objects():
    def body() -> qd.i32:
        return threshold

    with warnings.catch_warnings():  # @qd.pure's DeprecationWarning comes once per process
        warnings.simplefilter("ignore", DeprecationWarning)
        marked = qd.kernel(qd.pure(body))  # @qd.kernel above @qd.pure
    with pytest.raises(qd.QuadrantsCompilationError, match="global variable threshold"):
        marked()
    with pytest.raises(TypeError, match=r"@qd.pure decorates a kernel \(a @qd.kernel, or the function under it\), "
                                        "but got int"):
        qd.pure(3)


def test_print_non_pure_names_each_kernel_not_declared_pure_when_it_compiles(capsys):
    @qd.kernel
    def plain_kernel():
        pass

    @qd.kernel(fastcache=True)
    def declared_pure():
        pass

    plain_kernel()
    assert "[NOT_PURE]" not in capsys.readouterr().out  # off by default
    qd.init(arch=qd.cpu, offline_cache=False, print_non_pure=True)
    plain_kernel()
    declared_pure()
    out = capsys.readouterr().out
    assert "[NOT_PURE] Debug information: not pure: plain_kernel" in out and "declared_pure" not in out
