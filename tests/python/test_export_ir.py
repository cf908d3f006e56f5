# tests/python/test_export_ir.py: kernels exported as IR text for C++ programs (see examples/cpp/).
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core


@qd.kernel
def axpy(a: qd.f32, x: qd.types.ndarray(), y: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def fill_rows(x: qd.types.ndarray(), value: qd.template()) -> None:
    for i, j in x:
        x[i, j] = value


@pytest.mark.cpu_only
def test_export_follows_the_example_arguments():
    qd.init(arch=qd.cpu)
    contiguous = axpy.export_ir(1.0, np.zeros(4, np.float32), np.zeros(4, np.float32))
    assert "(array x f32 1 () 1 1)" in contiguous
    strided = axpy.export_ir(1.0, qd.from_dlpack(np.zeros(8, np.float64)[::2]), np.zeros(4, np.float64))
    assert "(array x f64 1 () 0 1)" in strided
    assert _core.print_ir(contiguous).startswith("(kernel axpy")  # the C++ parser accepts it


def test_export_bakes_template_values():
    qd.init(arch=qd.cpu)
    text = fill_rows.export_ir(np.zeros((2, 3), np.int32), 7)
    assert "(const int 7)" in text or "(const i32 7)" in text
    compiled = _core.compile_kernel(text)
    assert compiled.name == "fill_rows"


def test_export_errors_name_the_problem():
    qd.init(arch=qd.cpu)
    with pytest.raises(TypeError, match="needs one example argument per parameter of 'axpy'"):
        axpy.export_ir(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="argument 'x': expected an array"):
        axpy.export_ir(1.0, "not an array", np.zeros(4, np.float32))
