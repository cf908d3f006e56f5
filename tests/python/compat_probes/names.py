# tests/python/compat_probes/names.py: probes of the rows for upstream's top-level names that quadrants added after
# the first table: streams and events, stream_parallel blocks, perf_dispatch, the small kernel-language and Python
# names, the optimizer hints, the clocks, BufferView, quantized types and meshes.
import ast
import dataclasses
import warnings

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from quadrants.lang._func_base import FuncBase
from quadrants.lang._pruning import Pruning
from quadrants.lang.ast.ast_transformer_utils import ASTTransformerFuncContext, ASTTransformerGlobalContext
from quadrants.lang.ast.ast_transformers.call_transformer import CallTransformer
from quadrants.lang.ast.ast_transformers.function_def_transformer import FunctionDefTransformer


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


@probe("`qd.assume_in_range`, `qd.cache_read_only`, `quadrants.lang.misc.loop_unique`")
def optimizer_hints():
    from quadrants.lang.misc import loop_unique

    x = qd.field(qd.i32, shape=4)
    x.from_numpy(np.arange(4, dtype=np.int32))
    y = qd.field(qd.i32, shape=4)

    @qd.kernel
    def k():
        qd.cache_read_only(x)
        for i in range(4):
            y[loop_unique(i, covers=[y])] += qd.assume_in_range(x[i], i, 0, 1) + 1

    k()
    assert y.to_numpy().tolist() == [1, 2, 3, 4]


@probe("`quadrants.lang.kernel_impl` (`kernel`, `func`, `pyfunc`, `real_func`, `data_oriented`, "
       "`Kernel.ensure_compiled` / `materialize` / `launch_kernel`)")
def kernel_impl_steps():
    from quadrants.lang import kernel_impl

    assert kernel_impl.kernel is qd.kernel and kernel_impl.func is qd.func
    original = kernel_impl.Kernel.launch_kernel
    seen = []

    def launch_kernel(self, key, t_kernel, compiled_kernel_data, *args, qd_stream=None):
        seen.append((self.func.__name__, key[1], compiled_kernel_data is None))
        return original(self, key, t_kernel, compiled_kernel_data, *args, qd_stream=qd_stream)

    @qd.kernel
    def bump(x: qd.types.ndarray()):
        x[0] += 1

    a = qd.ndarray(qd.i32, (1,))
    kernel_impl.Kernel.launch_kernel = launch_kernel
    try:
        bump(a)
        bump(a)
    finally:
        kernel_impl.Kernel.launch_kernel = original
    bump(a)  # straight to the launcher again: not seen
    # The first call's compiled_kernel_data is None unless an earlier process left bump's translation in the cache;
    # the second call's kernel was compiled by the first.
    assert [s[:2] for s in seen] == [("bump", 0)] * 2 and seen[1][2] is False and a.to_numpy().tolist() == [3]


@probe("`quadrants.lang.ast.symbol_resolver.ASTResolver`, `quadrants.lang.ast.transform_tree`, `quadrants.lang.kernel` "
       "(`Kernel`, `transform_tree`), `quadrants.lang._dataclass_util.create_flat_name`, "
       "`quadrants.lang._kernel_impl_dataclass` (`expand_func_arguments`, `unpack_ast_struct_expressions`, "
       "`populate_global_vars_from_dataclass`), `quadrants.lang._func_base._get_frozen_dc_plan`, "
       "`quadrants._test_tools.dataclass_test_tools`")
def upstream_internal_paths():
    import ast
    import dataclasses

    from quadrants._test_tools import dataclass_test_tools
    from quadrants.lang import _dataclass_util, _kernel_impl_dataclass  # noqa: F401  (upstream's paths import)
    from quadrants.lang._func_base import _get_frozen_dc_plan  # noqa: F401
    from quadrants.lang.ast import transform_tree  # noqa: F401
    from quadrants.lang.ast.symbol_resolver import ASTResolver
    from quadrants.lang.kernel import Kernel  # noqa: F401

    node = ast.parse("qd.lang.ops", mode="eval").body
    assert ASTResolver.resolve_value(node, {"qd": qd}) is qd.lang.ops
    assert _dataclass_util.create_flat_name("s", "a") == "__qd_s__qd_a"

    @dataclasses.dataclass
    class S:
        a: qd.types.ndarray(dtype=qd.f32, ndim=1)

    built = dataclass_test_tools.build_struct(S)
    assert built.a.shape == (10,)


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


@probe("kernel coverage (`QD_KERNEL_COVERAGE`)", status="not yet")
def kernel_coverage():
    import importlib

    with pytest.raises(ImportError):
        importlib.import_module("quadrants.lang._kernel_coverage")


@probe("`qd.types.quant` (`int`, `fixed`, `float`), `qd.BitpackedFields(max_num_bits=...)` and its "
       "`place(..., shared_exponent=True)`, `SNode.quant_array()` / `FieldsBuilder.quant_array()`; "
       "`qd.extension.quant` / `quant_basic`")
def quantized_types():
    assert qd.lang.impl.current_cfg().arch in (qd.x64, qd.cuda) and qd.extension.quant is not None
    n = qd.field(qd.types.quant.int(5, True))
    f = qd.field(qd.types.quant.fixed(10, signed=True, max_value=2.0))
    e = qd.field(qd.types.quant.float(exp=5, frac=10))
    pack = qd.BitpackedFields(max_num_bits=32)
    pack.place(n, f)
    qd.root.dense(qd.i, 4).place(pack)
    alone = qd.BitpackedFields(max_num_bits=16)
    alone.place(e)
    qd.root.dense(qd.i, 4).place(alone)
    q = qd.field(qd.types.quant.int(8, False))
    qd.root.dense(qd.i, 2).quant_array(qd.j, 4, max_num_bits=32).place(q)

    @qd.kernel
    def k():
        for i in range(4):
            n[i] = i - 2
            f[i] = 0.5 * i - 0.75
            e[i] = 1.5 * i
            q[i // 2, i] = 200 + i

    k()
    assert n.to_numpy().tolist() == [-2, -1, 0, 1]
    assert np.allclose(f.to_numpy(), [-0.75, -0.25, 0.25, 0.75], atol=2.0 / 512)
    assert e.to_numpy().tolist() == [0.0, 1.5, 3.0, 4.5]
    assert q[1, 3] == 203 and q[0, 0] == 200


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


@probe("`quadrants.lang._fast_caching` (`args_hasher`, `function_hasher`, `config_hasher`, `src_hasher`, "
       "`python_side_cache`), `quadrants.lang._wrap_inspect`, `quadrants.lang.kernel_arguments.ArgMetadata`")
def fast_caching_modules():
    from quadrants.lang._fast_caching import args_hasher, config_hasher, function_hasher, src_hasher
    from quadrants.lang._fast_caching.python_side_cache import PythonSideCache
    from quadrants.lang._wrap_inspect import get_source_info_and_src
    from quadrants.lang.kernel_arguments import ArgMetadata

    template = ArgMetadata(qd.template(), "t")
    assert args_hasher.hash_args(False, [1], [template]) != args_hasher.hash_args(False, [2], [template])
    assert args_hasher.hash_args(False, [qd.field(qd.f32, (2,))], [template]) is args_hasher.FastcacheSkip.WARN
    info, lines = get_source_info_and_src(fast_caching_modules)
    assert lines[0].startswith("@probe(") and function_hasher.hash_kernel(info)
    assert function_hasher.validate_hashed_function_infos(function_hasher.hash_functions([info]))
    assert config_hasher.hash_device_caps().startswith("T") and PythonSideCache().cache_folder
    assert config_hasher.hash_compile_config() and src_hasher.create_cache_key(False, info, [], [])


@probe("`qd.Vector.field(n, dtype=[...])`, `qd.Matrix.field(n, m, dtype=[[...], ...])`: one dtype per entry "
       "(e.g. a quantized float beside a quantized fixed-point entry, bit-packed together)")
def matrix_entries_of_their_own_types():
    qfl = qd.types.quant.float(exp=8, frac=5, signed=True)
    qfx = qd.types.quant.fixed(bits=10, signed=True, scale=0.1)
    w = qd.Vector.field(2, dtype=[qfl, qfx])
    pack = qd.BitpackedFields(max_num_bits=32)
    pack.place(w.get_scalar_field(0), w.get_scalar_field(1))
    qd.root.dense(qd.i, 2).place(pack)
    w[1] = [1.5, 2.5]

    @qd.kernel
    def double():
        w[0] = w[1] * 2

    double()
    assert w.dtype == qd.f32
    np.testing.assert_allclose(w.to_numpy(), [[3.0, 5.0], [1.5, 2.5]], rtol=1e-6)
    m = qd.Matrix.field(2, 2, dtype=[[qd.f32, qd.f32], [qd.f32, qd.f32]], shape=1)  # one dtype: a plain field
    assert m.dtype == qd.f32


@probe("`quadrants.lang.ast.ast_transformers.call_transformer.CallTransformer`, "
       "`quadrants.lang.ast.ast_transformers.function_def_transformer.FunctionDefTransformer`, "
       "`quadrants.lang.ast.ast_transformer_utils` (`ASTTransformerFuncContext`, `ASTTransformerGlobalContext`), "
       "`quadrants.lang._pruning.Pruning`, `quadrants.lang._func_base.FuncBase`")
def upstream_dataclass_ast_helpers():
    @dataclasses.dataclass
    class Inner:
        a: qd.types.NDArray[qd.i32, 1]

    @dataclasses.dataclass
    class Outer:
        b: qd.types.NDArray[qd.i32, 1]
        inner: Inner

    ctx = ASTTransformerFuncContext(FuncBase(), ASTTransformerGlobalContext(Pruning({"__qd_s__qd_inner", "__qd_s__qd_inner__qd_a"})))
    added, out = CallTransformer._expand_Call_dataclass_args(ctx, [ast.Name(id="s", ctx=ast.Load(), ptr=Outer)])
    assert [n.id for n in added] == [n.id for n in out] == ["__qd_s__qd_inner__qd_a"]
    value = Outer(qd.ndarray(qd.i32, (2,)), Inner(qd.ndarray(qd.i32, (3,))))
    FunctionDefTransformer._transform_func_arg(ctx, "s", Outer, value)
    assert sorted(ctx.variables) == ["__qd_s__qd_b", "__qd_s__qd_inner__qd_a"]
    assert ctx.variables["__qd_s__qd_b"] is value.b and ctx.variables["__qd_s__qd_inner__qd_a"] is value.inner.a
