# tests/python/test_genesis_surface.py: the API surface Genesis (genesis-world 1.4.5) reaches for, as upstream 1.3.3
# behaves (issue 19; scripts/genesis_check.sh runs Genesis itself).
import enum
import math
import time

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# --- qd.tensor and its wrappers (genesis/utils/array_class.py V/V_VEC/V_MAT) -----------------------------------
@pytest.mark.parametrize("backend, container", [(qd.Backend.NDARRAY, qd.Ndarray), (qd.Backend.FIELD, qd.Field)])
def test_tensor_allocates_on_the_chosen_backend(backend, container):
    t = qd.tensor(qd.f32, shape=(2, 3), backend=backend)
    assert type(t) is qd.Tensor and isinstance(t._unwrap(), container)
    assert t.shape == (2, 3) and t.backend is backend and t.layout is None
    t.fill(2.0)
    assert t.to_numpy().tolist() == [[2.0] * 3] * 2
    assert isinstance(qd.tensor(qd.i32, ()), qd.Tensor) and qd.tensor(qd.i32, 5).shape == (5,)


def test_tensor_default_backend_is_ndarray():
    assert isinstance(qd.tensor(qd.f32, 4)._unwrap(), qd.Ndarray)


def test_vector_and_matrix_tensors():
    v = qd.Vector.tensor(3, qd.f32, (4,), backend=qd.Backend.FIELD)
    m = qd.Matrix.tensor(2, 3, qd.f32, (4,), needs_grad=True)
    assert type(v) is qd.VectorTensor and v.element_shape == (3,)
    assert type(m) is qd.MatrixTensor and m.element_shape == (2, 3)
    assert not isinstance(m, qd.VectorTensor) and isinstance(m, qd.Tensor)
    assert type(qd.tensor(qd.types.vector(3, qd.f32), 2)) is qd.VectorTensor
    assert type(qd.wrap(qd.Matrix.field(2, 2, qd.f32, 3))) is qd.MatrixTensor
    with pytest.raises(TypeError, match=r"qd.VectorTensor\(...\) wraps a container of vectors"):
        qd.VectorTensor(qd.ndarray(qd.f32, 3))


def test_tensor_layout_is_checked_and_kept():
    t = qd.tensor(qd.f32, (2, 3), layout=(1, 0))
    assert t.layout == (1, 0) and t.shape == (2, 3)  # canonical shape; storage stays row-major here
    assert qd.tensor(qd.f32, (2, 3), layout=(0, 1)).layout is None
    with pytest.raises(ValueError, match=r"layout=\(0, 0\) is not a permutation of range\(2\)"):
        qd.tensor(qd.f32, (2, 3), layout=(0, 0))
    with pytest.raises(ValueError, match="layout has 1 entries but shape has 2 dimensions"):
        qd.tensor(qd.f32, (2, 3), layout=(0,))
    with pytest.raises(TypeError, match="layout= is not supported with compound dtypes"):
        qd.tensor(qd.types.vector(3, qd.f32), 2, layout=(0,))


def test_tensor_options_are_upstreams():
    with pytest.raises(TypeError, match=r"qd.tensor\(...\) does not accept order=; pass layout=\(...\) instead"):
        qd.tensor(qd.f32, (2, 3), order="ji")
    with pytest.raises(TypeError, match=r"qd.Vector.tensor\(\) got unexpected keyword argument\(s\) \['offset'\]"):
        qd.Vector.tensor(3, qd.f32, 4, offset=1)
    with pytest.raises(ValueError, match="backend=7 is not a valid qd.Backend"):
        qd.tensor(qd.f32, 4, backend=7)
    with pytest.raises(TypeError, match="to wrap an existing ScalarNdarray, use qd.wrap"):
        qd.tensor(qd.ndarray(qd.f32, 2), 2)


# --- quadrants.algorithms (genesis/engine/bvh.py) ---------------------------------------------------------------
def test_sort_scratch_slots_match_upstream():
    from quadrants.algorithms import sort_scratch_slots

    # Values printed by quadrants 1.3.3 for the same calls.
    cases = [(0, 1), (1, 1), (1000, 2), (100000, 4), (5, None), (70000, None)]
    assert [sort_scratch_slots(n, d) for n, d in cases] == [1, 256, 1028, 100490, 256, 70420]
    with pytest.raises(ValueError, match="log256_max_n=5 exceeds the maximum of 4"):
        sort_scratch_slots(10, 5)


def test_device_radix_sort_is_a_clear_compile_error():
    from quadrants.algorithms import sort

    keys = qd.ndarray(qd.u32, 8)

    @qd.kernel
    def sort_keys(keys: qd.types.ndarray()):
        sort(keys, keys, keys, keys, keys, keys, qd.u32, False, 32, 1)

    with pytest.raises(qd.QuadrantsCompilationError, match=r"qd.algorithms.sort\(\) is not supported yet") as error:
        sort_keys(keys)
    # It points at what exists (parallel_sort) and no longer claims qd.simt's block intrinsics are missing.
    assert "qd.algorithms.parallel_sort(keys, values)" in str(error.value)
    assert "lacks" not in str(error.value)


# --- qd.types.ndarray(element_dim=, element_shape=) (genesis/engine/entities/particle_entity.py) -----------------
def test_ndarray_annotation_takes_upstreams_element_arguments():
    assert qd.types.ndarray(qd.f32, element_shape=(3,)).element_shape() == (3,)
    assert qd.types.ndarray(qd.f32, element_dim=2, element_shape=(2, 2)).element_shape() == (2, 2)
    assert qd.types.ndarray(element_dim=1).element_dim == 1
    assert qd.types.ndarray(needs_grad=True, boundary="clamp").ndim is None
    with pytest.raises(ValueError, match="shape doesn't match specified dim: 1!=2"):
        qd.types.ndarray(qd.f32, element_dim=2, element_shape=(3,))
    with pytest.raises(ValueError, match="Only scalars, vectors, and matrices"):
        qd.types.ndarray(element_dim=3)


def test_element_dim_parameter_takes_a_vector_ndarray():
    @qd.kernel
    def norms(v: qd.types.ndarray(element_dim=1), out: qd.types.ndarray()):
        for i in range(v.shape[0]):
            out[i] = v[i].norm()

    v = qd.Vector.ndarray(2, qd.f32, 2)
    v.from_numpy(np.array([[3, 4], [6, 8]], dtype=np.float32))
    out = np.zeros(2, dtype=np.float32)
    norms(v, out)
    assert out.tolist() == [5.0, 10.0]


# --- @qd.perf_dispatch (genesis/engine/solvers/rigid/constraint/solver.py) ---------------------------------------
def _dispatcher(**options):
    @qd.perf_dispatch(get_geometry_hash=lambda n, out: n, **options)
    def work(n, out): ...

    calls = []

    @work.register
    def slow(n, out):
        calls.append("slow")
        time.sleep(0.02)
        out.append(n)

    @work.register(is_compatible=lambda n, out: n > 0)
    def fast(n, out):
        calls.append("fast")
        out.append(n)

    return work, calls


def test_perf_dispatch_settles_on_the_fastest_implementation():
    work, calls = _dispatcher(first_warmup=1, active=1)
    out = []
    for _ in range(6):
        work(3, out)
    assert out == [3] * 6  # every call runs exactly one implementation
    assert sorted(calls[:4]) == ["fast", "fast", "slow", "slow"] and calls[4:] == ["fast", "fast"]


def test_perf_dispatch_respects_is_compatible():
    work, calls = _dispatcher()
    for _ in range(3):
        work(0, [])
    assert calls == ["slow"] * 3


def test_perf_dispatch_force(monkeypatch):
    monkeypatch.setenv("QD_PERFDISPATCH_FORCE", "work:slow")
    work, calls = _dispatcher()
    work(1, [])
    work(1, [])
    assert calls == ["slow", "slow"]


def test_perf_dispatch_checks_signatures():
    @qd.perf_dispatch(get_geometry_hash=lambda a, b: 0)
    def proto(a, b): ...

    with pytest.raises(qd.QuadrantsSyntaxError, match="Signature parameter c of function not in perf_dispatch"):
        proto.register(lambda a, c: None)
    with pytest.raises(qd.QuadrantsSyntaxError, match="Number of function parameters 1 doesn't match"):
        proto.register(lambda a: None)


def test_perf_dispatch_registers_kernels():
    @qd.perf_dispatch(get_geometry_hash=lambda x: x.shape)
    def add_one(x: qd.types.ndarray()): ...

    @add_one.register
    @qd.kernel
    def add_one_kernel(x: qd.types.ndarray()):
        for i in x:
            x[i] += 1

    x = np.zeros(4, dtype=np.int32)
    add_one(x)
    add_one_kernel(x)  # a registered implementation stays callable on its own
    assert x.tolist() == [2] * 4


# --- kernel language -----------------------------------------------------------------------------------------
class Mode(enum.IntEnum):
    FORCE = 2


def test_int_enum_constants_in_kernels():
    @qd.kernel
    def write(x: qd.types.ndarray()):
        for i in range(1):
            x[i] = Mode.FORCE

    x = np.zeros(1, dtype=np.int32)
    write(x)
    assert x[0] == 2


def test_loop_config_takes_name_and_parallelize():
    @qd.kernel
    def running_sum(x: qd.types.ndarray()):
        qd.loop_config(name="running_sum", parallelize=1)
        for i in range(1, x.shape[0]):
            x[i] += x[i - 1]

    x = np.ones(8, dtype=np.int32)
    running_sum(x)
    assert x.tolist() == list(range(1, 9))


def test_vector_any_all_and_eps_norms():
    @qd.kernel
    def compute(v: qd.types.ndarray(dtype=qd.math.vec3), out: qd.types.ndarray()):
        for i in range(1):
            a = v[0]
            out[0] = (a > 2.5).any()
            out[1] = (a > 0.5).all()
            out[2] = (a > 3.5).any()
            out[3] = a.norm(16.0)
            out[4] = a.normalized(1.0)[0]
            out[5] = a.norm_inv(2.0)

    v = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    out = np.zeros(6, dtype=np.float32)
    compute(v, out)
    norm = math.sqrt(14.0)
    np.testing.assert_allclose(out, [1, 1, 0, math.sqrt(30.0), 1 / (norm + 1), 1 / math.sqrt(16.0)], rtol=1e-6)


@pytest.mark.parametrize("make", [lambda: qd.field(qd.i32, shape=4), lambda: qd.Vector.field(2, qd.i32, shape=4)])
def test_field_fill_inside_a_kernel_runs_every_launch(make):
    x = make()

    @qd.kernel
    def refill():
        x.fill(0)
        for i in range(4):
            x[i] += i + 1

    for _ in range(3):
        refill()
    expected = np.arange(1, 5)
    assert x.to_numpy().reshape(4, -1)[:, 0].tolist() == expected.tolist()


def test_struct_member_fill_inside_a_func():
    particles = qd.types.struct(active=qd.i32, mass=qd.f32).field(shape=3)

    @qd.func
    def clear():
        particles.active.fill(7)

    @qd.kernel
    def run():
        clear()
        particles[1].active = 1

    particles.active.fill(5)
    run()
    assert particles.active.to_numpy().tolist() == [7, 1, 7]


# --- zero-copy exports (genesis/utils/misc.py qd_to_torch) ---------------------------------------------------------
@pytest.mark.cpu_only  # host memory shared with numpy/torch; CUDA containers are exported through DLPack
@pytest.mark.parametrize("make", [lambda: qd.ndarray(qd.f32, 4), lambda: qd.Vector.field(3, qd.f32, shape=4)])
def test_to_torch_and_to_numpy_share_memory_without_copy(make):
    torch = pytest.importorskip("torch")
    x = make()
    t = x.to_torch(copy=False)
    t.fill_(2.0)
    n = x.to_numpy(copy=None)
    n[...] += 1.0
    assert isinstance(t, torch.Tensor) and np.all(x.to_numpy() == 3.0)
    assert x.to_torch().data_ptr() != t.data_ptr()  # the default still copies


def test_zero_copy_refused_where_a_copy_is_needed():
    x = qd.ndarray(qd.f32, 4)
    with pytest.raises(ValueError, match=r"to_numpy\(copy=False\): Zero-copy not available .*a dtype conversion"):
        x.to_numpy(np.float64, copy=False)
    assert x.to_numpy(np.float64, copy=None).dtype == np.float64
    sparse = qd.field(qd.f32)
    qd.root.pointer(qd.i, 4).place(sparse)
    with pytest.raises(ValueError, match="Zero-copy not available"):
        sparse.to_numpy(copy=False)
    assert sparse.to_numpy(copy=None).tolist() == [0.0] * 4

