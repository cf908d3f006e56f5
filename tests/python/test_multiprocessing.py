# tests/python/test_multiprocessing.py: kernels (plain, template, torch_op) pickle by reference and run in
# `spawn` pools and torch.multiprocessing workers, which share one disk cache.
import multiprocessing
import pickle

import numpy as np
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.cpu_only  # workers start their own CPU runtime


@qd.kernel
def scale_add(x: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32, b: qd.f32):
    for i in x:
        x[i] = a * x[i] + b


@qd.kernel
def add_constant(x: qd.types.ndarray(ndim=1), c: qd.template()):
    for i in x:
        x[i] += c


@qd.torch_op("qdtest_mp::cube")
def cube(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    cube_kernel(x, out)
    return out


@qd.kernel
def cube_kernel(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in x:
        out[i] = x[i] * x[i] * x[i]


def _init_worker():
    qd.init(arch=qd.cpu, cpu_max_num_threads=1)


def _apply(task):
    """Runs one pickled kernel on one chunk, in a worker; returns the chunk."""
    kernel, chunk, args = task
    if kernel is cube:
        return cube(torch.from_numpy(chunk)).numpy()
    kernel(chunk, *args)
    return chunk


def test_kernels_pickle_by_reference():
    for obj in (scale_add, add_constant, cube):
        assert pickle.loads(pickle.dumps(obj)) is obj
        assert len(pickle.dumps(obj)) < 200  # a name, not the kernel's state


def test_local_kernel_cannot_be_pickled_and_says_why():
    @qd.kernel
    def local(x: qd.types.ndarray()):
        for i in x:
            x[i] = 0

    with pytest.raises(pickle.PicklingError, match="defined inside a function.*top level"):
        pickle.dumps(local)


def test_spawn_pool_maps_every_kind_of_kernel_over_chunks(tmp_path, monkeypatch):
    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path))  # one cache, shared by both workers
    chunks = np.array_split(np.arange(40, dtype=np.float32), 4)
    tasks = ([(scale_add, c.copy(), (2.0, 1.0)) for c in chunks] + [(add_constant, c.copy(), (5,)) for c in chunks]
             + [(cube, c.copy(), ()) for c in chunks])
    with multiprocessing.get_context("spawn").Pool(2, initializer=_init_worker) as pool:
        results = pool.map(_apply, tasks)
    whole = np.arange(40, dtype=np.float32)
    np.testing.assert_array_equal(np.concatenate(results[0:4]), 2 * whole + 1)
    np.testing.assert_array_equal(np.concatenate(results[4:8]), whole + 5)
    np.testing.assert_array_equal(np.concatenate(results[8:12]), whole ** 3)
    assert list(tmp_path.glob("scale_add-*.so")), "the workers cached their compiles in the shared cache"


def _torch_worker(rank, kernel, shared):
    _init_worker()
    part = shared[rank * 8:(rank + 1) * 8]  # a view of the shared-memory tensor: the kernel writes in place
    kernel(part, float(rank + 1), 0.0)


def test_torch_multiprocessing_workers_write_a_shared_tensor(tmp_path, monkeypatch):
    import torch.multiprocessing as tmp

    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path))
    shared = torch.ones(16, dtype=torch.float32).share_memory_()
    tmp.spawn(_torch_worker, args=(scale_add, shared), nprocs=2, join=True)
    expected = torch.cat([torch.full((8,), 1.0), torch.full((8,), 2.0)])
    torch.testing.assert_close(shared, expected)
