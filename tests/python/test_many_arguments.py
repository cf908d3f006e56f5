# tests/python/test_many_arguments.py: kernels that read many arrays (Genesis' dataclasses of dozens of arrays).
import dataclasses

import numpy as np
import pytest

import quadrants as qd


def _dataclass_of(count):
    names = [f"m{k}" for k in range(count)]
    return names, dataclasses.make_dataclass("Info", [(n, qd.types.ndarray()) for n in names], frozen=True)


# 27 arrays and out are the most a CUDA task takes by value, 28 go through the launch buffer.
@pytest.mark.parametrize("count", [27, 28, 65, 511])
def test_kernel_reading_many_arrays(count):
    qd.init(arch=qd.cpu)
    names, info_type = _dataclass_of(count)

    @qd.kernel
    def total(info: info_type, out: qd.types.ndarray()):
        for i in range(out.shape[0]):
            for name in qd.static(names):
                out[i] += getattr(info, name)[i]

    info = info_type(*[np.full(3, k, np.int32) for k in range(count)])
    out = np.zeros(3, np.int32)
    total(info, out)
    assert out.tolist() == [sum(range(count))] * 3


def test_more_arguments_than_the_launcher_packs_is_a_clear_error():
    qd.init(arch=qd.cpu)
    names, info_type = _dataclass_of(600)

    @qd.kernel
    def total(info: info_type, out: qd.types.ndarray()):
        for name in qd.static(names):
            out[0] += getattr(info, name)[0]

    info = info_type(*[np.zeros(1, np.int32) for _ in range(600)])
    with pytest.raises(ValueError, match="at most 512"):
        total(info, np.zeros(1, np.int32))
