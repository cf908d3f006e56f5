# tests/python/test_cuda_stack_limit.py: qd.init(cuda_stack_limit=) sets the stack of each CUDA thread (deep
# @qd.real_func recursion needs more than the driver's default); 0 gives the default back.
import pytest

import quadrants as qd
from quadrants.runtime import _core

if _core.cuda_status() != "":
    pytest.skip(f"CUDA is not usable: {_core.cuda_status()}", allow_module_level=True)


@qd.real_func
def depth_sum(n: qd.i32) -> qd.i32:
    result = 0
    if n > 0:
        result = n + depth_sum(n - 1)
    return result


@qd.kernel
def recurse(n: qd.i32) -> qd.i32:
    return depth_sum(n)


def test_the_option_sets_the_limit_and_zero_restores_the_default():
    qd.init(arch=qd.cuda)
    default = _core.cuda_stack_limit()
    qd.init(arch=qd.cuda, cuda_stack_limit=64 * 1024)
    assert _core.cuda_stack_limit() == 64 * 1024
    assert recurse(200) == 200 * 201 // 2
    qd.init(arch=qd.cuda)
    assert _core.cuda_stack_limit() == default


def test_a_bad_value_names_the_option():
    with pytest.raises(ValueError, match=r"cuda_stack_limit=\.\.\.\) expects the bytes of stack per CUDA thread"):
        qd.init(arch=qd.cuda, cuda_stack_limit=-1)
    for bad in (1.5, True, "64k"):
        with pytest.raises(TypeError, match=r"cuda_stack_limit=\.\.\.\) expects a int"):
            qd.init(arch=qd.cuda, cuda_stack_limit=bad)


def test_a_size_the_driver_refuses_is_a_clear_error():
    with pytest.raises(RuntimeError, match="cuCtxSetLimit"):
        qd.init(arch=qd.cuda, cuda_stack_limit=1 << 40)
    qd.init(arch=qd.cuda)
