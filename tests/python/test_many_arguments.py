# tests/python/test_many_arguments.py: kernels that read many arrays (Genesis' dataclasses of dozens of arrays).
import dataclasses

import numpy as np
import pytest

import quadrants as qd


def _dataclass_of(count):
    names = [f"m{k}" for k in range(count)]
    return names, dataclasses.make_dataclass("Info", [(n, qd.types.ndarray()) for n in names], frozen=True)


# 15 arrays and out are the most a CUDA task takes by value, 16 go through the launch buffer; 255 and out are the
# most a launch packs on its stack, 256 go in the launcher's argument storage.
@pytest.mark.parametrize("count", [15, 16, 65, 255, 256])
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


def test_more_arguments_than_upstream_tests_pass_run_and_run_again():
    """Past the old limit of 512: the launcher's argument storage is made once and reused by later calls, which
    must see their own arguments, not the last call's."""
    qd.init(arch=qd.cpu)
    names, info_type = _dataclass_of(600)

    @qd.kernel
    def total(info: info_type, out: qd.types.ndarray()):
        for name in qd.static(names):
            out[0] += getattr(info, name)[0]

    for scale in (1, 3):
        info = info_type(*[np.full(1, k * scale, np.int32) for k in range(600)])
        out = np.zeros(1, np.int32)
        total(info, out)
        assert out[0] == scale * sum(range(600))


def test_a_vector_parameter_of_1024_entries():
    """Upstream's test_arg_4k: each entry fills a kernel parameter, 1024 of them (4 KB of i32)."""
    qd.init(arch=qd.cpu)
    vec1024 = qd.types.vector(1024, qd.i32)

    @qd.kernel
    def total(a: vec1024) -> qd.i32:
        result = 0
        for i in range(1024):
            result += a[i]
        return result

    assert total(vec1024(list(range(1024)))) == 523776
    assert total(vec1024([2] * 1024)) == 2048


def test_fields_as_globals_beyond_the_stack_part_of_a_launch():
    """A kernel whose fields (appended after its arguments) take it past what a launch packs on its stack."""
    qd.init(arch=qd.cpu)
    fields = [qd.field(qd.i32, shape=2) for _ in range(300)]
    for k, f in enumerate(fields):
        f.fill(k)

    @qd.kernel
    def total(x: qd.types.ndarray()) -> qd.i32:
        result = x[0]
        for f in qd.static(fields):
            result += f[1]
        return result

    assert total(np.full(1, 7, np.int32)) == 7 + sum(range(300))
