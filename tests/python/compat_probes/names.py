# tests/python/compat_probes/names.py: probes of the rows for upstream's top-level names that quadrants added after
# the first table: streams and events, stream_parallel blocks, perf_dispatch, the small kernel-language and Python
# names, the optimizer hints, the clocks, BufferView, quantized types and meshes.
import warnings

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe


@probe("`qd.create_stream()`, `qd.create_event()`, `qd.Stream`, `qd.Event` (`record`, `wait`, `synchronize`, "
       "`destroy`, `with`), `kernel(..., qd_stream=s)`; `quadrants.lang.stream`")
def streams_and_events():
    from quadrants.lang.stream import create_stream

    assert create_stream is qd.create_stream
    x = qd.ndarray(qd.f32, shape=(8,))

    @qd.kernel
    def fill(a: qd.types.ndarray(qd.f32, 1), v: qd.f32):
        for i in range(8):
            a[i] = v

    s1, s2 = qd.create_stream(), qd.create_stream()
    with qd.create_event() as e:
        fill(x, 2.0, qd_stream=s1)
        e.record(s1)
        e.wait(qd_stream=s2)
        fill(x, 3.0, qd_stream=s2)
        s2.synchronize()
        handles = (s1.handle, e.handle)
    assert (x.to_numpy() == 3.0).all()
    on_cuda = qd.lang.impl.current_cfg().arch == qd.cuda  # QD_TEST_ARCH=cuda runs the probes on CUDA
    assert (handles[0] != 0, handles[1] != 0) == (on_cuda, on_cuda)  # the CPU's handles are 0
    s1.destroy()
    s2.destroy()


@probe("`with qd.stream_parallel():` blocks at a kernel's top level")
def stream_parallel_blocks():
    a = qd.field(qd.f32, shape=4)

    @qd.kernel
    def k():
        with qd.stream_parallel():
            for i in range(4):
                a[i] = 1.0
        with qd.stream_parallel():
            for i in range(4):
                a[i] += i

    k()
    assert a.to_numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


@probe("`@qd.perf_dispatch` (`quadrants.lang._perf_dispatch`), `quadrants.lang._kernel_types`, `kernel._primal.mapper` "
       "(`quadrants.lang._template_mapper`)")
def perf_dispatch():
    from quadrants.lang import _kernel_types, _perf_dispatch, _template_mapper  # noqa: F401  all import

    @qd.kernel
    def scaled(k: qd.template(), x: qd.types.ndarray()):
        for i in x:
            x[i] *= k

    x = qd.ndarray(qd.f32, 2)
    x.fill(1.0)
    scaled(2, x)
    scaled(3, x)
    assert x.to_numpy().tolist() == [6.0, 6.0] and len(scaled._primal.mapper.mapping) == 2

    called = []

    @qd.perf_dispatch(get_geometry_hash=lambda n: 0, warmup=0, first_warmup=1, active=1)
    def op(n: int): ...

    @op.register
    def first(n: int):
        called.append("first")

    @op.register
    def second(n: int):
        called.append("second")

    for _ in range(6):
        op(1)
    assert len(called) == 6 and set(called) == {"first", "second"}
    assert op._fastest_dispatch_impl_by_geometry_hash[0].__name__ in ("first", "second")


@probe("`qd.frexp`, `qd.pyfunc`, `qd.global_thread_idx`, `qd.dump_compile_config`, `qd.sparse.grid` / "
       "`qd.sparse.usage`, `qd.sparse_matrix_builder`, `qd.tools` (`PLYWriter`, `write_vtk`, `diagnose`)")
def small_names():
    @qd.pyfunc
    def twice(v):
        return v * 2

    @qd.kernel
    def k(v: qd.f32) -> qd.types.vector(2, qd.f32):
        m, e = qd.frexp(v)
        return qd.Vector([m, qd.f32(twice(e))])

    assert tuple(k(6.5)) == (0.8125, 6.0) and twice(4) == 8
    grid = qd.sparse.grid({"m": qd.f32}, shape=(10, 10))
    grid[1, 2].m = 1.0
    assert qd.sparse.usage(grid) == pytest.approx(0.01)
    assert qd.sparse_matrix_builder is qd.types.sparse_matrix_builder
    assert qd.global_thread_idx is qd.simt.block.global_thread_idx
    assert callable(qd.tools.PLYWriter) and callable(qd.tools.write_vtk) and callable(qd.dump_compile_config)


@probe("`qd.assume_in_range`, `qd.cache_read_only`")
def optimizer_hints():
    x = qd.field(qd.i32, shape=4)
    x.from_numpy(np.arange(4, dtype=np.int32))
    y = qd.field(qd.i32, shape=4)

    @qd.kernel
    def k():
        qd.cache_read_only(x)
        for i in range(4):
            y[i] = qd.assume_in_range(x[i], i, 0, 1) + 1

    k()
    assert y.to_numpy().tolist() == [1, 2, 3, 4]


@probe("`qd.clock_freq_hz()`")
def clock_freq():
    if qd.lang.impl.current_cfg().arch == qd.cuda:  # QD_TEST_ARCH=cuda: the device's nominal clock
        assert qd.clock_freq_hz() > 1e6
        return
    with pytest.raises(NotImplementedError, match="clock_freq_hz not implemented for arch x64"):
        qd.clock_freq_hz()  # on the CPU upstream raises too


@probe("`qd.clock_counter()`")
def clock_counter():
    @qd.kernel
    def k() -> qd.i64:
        return qd.clock_counter()

    assert k() > 0  # raw ticks (tests/python/test_clock_counter.py checks their order)


@probe("`qd.BufferView`: `arr[a:b]`, `qd.BufferView(arr, offset, size)`, `view[a:b]`, `view.subview()`; kernel and "
       "func parameters annotated `qd.BufferView` / `qd.BufferView[dtype]`")
def buffer_views():
    data = qd.ndarray(qd.f32, shape=(16,))
    view = data[4:12]
    assert (view.offset, view.size, view.shape, view[2:].offset) == (4, 8, (8,), 6)

    @qd.func
    def put(v: qd.BufferView[qd.f32], i: qd.i32, value: qd.f32):
        v[i] = value

    @qd.kernel
    def fill(v: qd.BufferView[qd.f32], arr: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(v.size):
            put(v, i, 1.0 + i)
        tail = arr[14:16]
        for i in range(tail.size):
            tail[i] = -1.0

    fill(view[2:6], data)
    expected = np.zeros(16, np.float32)
    expected[6:10] = [1, 2, 3, 4]
    expected[14:] = -1
    np.testing.assert_array_equal(data.to_numpy(), expected)


@probe("CUDA graph capture, kernel coverage (`QD_KERNEL_COVERAGE`)", status="not yet")
def graphs_coverage():
    import importlib

    with pytest.raises(ImportError):
        importlib.import_module("quadrants.lang._kernel_coverage")
    from quadrants.lang import impl

    @qd.kernel(graph=True)
    def step(x: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] += 1.0

    x = np.zeros(4, np.float32)
    for _ in range(2):
        step(x)
    prog = impl.get_runtime().prog  # no graph was captured or replayed
    assert (prog.get_graph_cache_size(), prog.get_graph_cache_used_on_last_call()) == (0, False)
    assert prog.get_graph_num_nodes_on_last_call() == 0 and (x == 2.0).all()


@probe("`qd.types.quant` (quantized types)", status="not yet")
def quantized_types():
    import importlib

    assert not hasattr(qd.types, "quant")
    with pytest.raises(ImportError):
        importlib.import_module("quadrants.types.quant")
    with pytest.raises(NotImplementedError, match="quadrants has no quantized types"):
        qd.BitpackedFields(max_num_bits=32)
    with pytest.raises(NotImplementedError, match=r"SNode.quant_array\(\): quadrants has no quantized types"):
        qd.root.quant_array(qd.i, 8, max_num_bits=32)
    with pytest.raises(NotImplementedError, match=r"FieldsBuilder.quant_array\(\)"):
        qd.FieldsBuilder().quant_array(qd.i, 8, max_num_bits=32)


@probe("meshes: `qd.Mesh`, `qd.MeshInstance`, `qd.mesh_local`, `qd.mesh_patch_idx`", status="no")
def meshes():
    with pytest.raises(NotImplementedError, match="quadrants has no meshes"):
        qd.Mesh.tri()
    with pytest.raises(NotImplementedError, match="quadrants has no meshes"):
        qd.MeshInstance()

    @qd.kernel
    def k():
        qd.mesh_local()

    with pytest.raises(qd.QuadrantsSyntaxError, match="quadrants has no mesh"):
        k()


@probe("`qd.init(arch=qd.python)`; `quadrants.lang._py_tensor.PyTensor`, `create_tensor`")
def python_arch_and_py_tensor():
    torch = pytest.importorskip("torch")
    from quadrants.lang._py_tensor import PyTensor, create_tensor

    with warnings.catch_warnings():  # it warns (once) that kernels compile for the CPU
        warnings.simplefilter("ignore", RuntimeWarning)
        qd.init(arch=qd.python)
    t = create_tensor((4, 2, 3), torch.float32, batch_ndim=2)
    t[1, 0, :] = torch.tensor([1.0, 2.0, 3.0])
    assert isinstance(t, PyTensor) and t.shape == (4, 2) and t.size() == (4, 2, 3)
    assert t._T_tc.size() == (2, 4, 3) and t._T_np[0, 1].tolist() == [1.0, 2.0, 3.0]

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = i * 2.0

    a = qd.ndarray(qd.f32, shape=(3,))
    fill(a)
    assert a.to_numpy().tolist() == [0.0, 2.0, 4.0]


@probe("`quadrants.lang._fast_caching` (`args_hasher`, `function_hasher`, `config_hasher`, "
       "`src_hasher.create_cache_key`), `quadrants.lang._wrap_inspect`, `quadrants.lang.kernel_arguments.ArgMetadata`")
def fast_caching_modules():
    from quadrants.lang._fast_caching import args_hasher, config_hasher, function_hasher, src_hasher
    from quadrants.lang._wrap_inspect import get_source_info_and_src
    from quadrants.lang.kernel_arguments import ArgMetadata

    template = ArgMetadata(qd.template(), "t")
    assert args_hasher.hash_args(False, [1], [template]) != args_hasher.hash_args(False, [2], [template])
    assert isinstance(args_hasher.hash_args(False, [qd.field(qd.f32, (2,))], [template]), str)
    info, lines = get_source_info_and_src(fast_caching_modules)
    assert lines[0].startswith("@probe(") and function_hasher.hash_kernel(info)
    assert function_hasher.validate_hashed_function_infos(function_hasher.hash_functions([info]))
    assert config_hasher.hash_compile_config() and src_hasher.create_cache_key(False, info, [], [])
