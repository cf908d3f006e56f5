# tests/python/test_container_storage.py: where dense and sparse containers keep their storage on the CPU.
import numpy as np
import pytest

import quadrants as qd

pytestmark = pytest.mark.cpu_only  # host storage: under QD_TEST_ARCH=cuda these containers live on the device

HUGE = 2 << 20  # a transparent huge page
BIG = 1 << 22  # 4 MiB of f32: the size from which dense storage goes in huge pages


def _mapping_of(address):
    """(VmFlags words, AnonHugePages kB) of the memory mapping of this process that holds `address`."""
    inside, flags, huge_kb = False, [], None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                low, high = (int(x, 16) for x in head.split("-"))
                inside = low <= address < high
            elif inside and head == "AnonHugePages:":
                huge_kb = int(line.split()[1])
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    assert huge_kb is not None, f"no mapping holds {address:#x}"
    return flags, huge_kb


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_large_dense_storage_starts_on_a_huge_page_and_holds_its_values():
    a = qd.ndarray(qd.f32, (BIG,))
    f = qd.field(qd.f32, (BIG,))
    v = qd.Vector.field(3, qd.f32, (BIG // 2,))
    values = np.arange(BIG, dtype=np.float32)
    a.from_numpy(values)
    f.from_numpy(values)
    for container in (a, f, v):
        assert container._array.data_ptr % HUGE == 0
    assert np.array_equal(a.to_numpy(), values) and np.array_equal(f.to_numpy(), values)
    assert not v.to_numpy().any()  # zero-filled


def test_sparse_storage_stays_page_granular():
    # A pointer's pool and a bitmasked field's array must commit memory page by page as cells are used, so
    # they are never put in huge pages (2 MiB committed by the first write).
    pooled = qd.field(qd.f32)
    qd.root.pointer(qd.i, 1 << 10).dense(qd.i, 1 << 12).place(pooled)
    masked = qd.field(qd.f32)
    qd.root.bitmasked(qd.i, BIG).place(masked)
    pooled[5] = 1.0
    masked[7] = 2.0
    for container in (pooled, masked):
        flags, huge_kb = _mapping_of(container._array.data_ptr)
        assert "nh" in flags and huge_kb == 0  # advised never to be in huge pages, and none is
    assert pooled[5] == 1.0 and masked[7] == 2.0 and masked[8] == 0.0
