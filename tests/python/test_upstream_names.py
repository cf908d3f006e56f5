# tests/python/test_upstream_names.py: the top-level names of upstream's dir(qd) 1.3.3 that quadrants lacked, and its
# internal module paths quadrants.lang._kernel_types and quadrants.lang._perf_dispatch: each works as upstream
# documents where it has meaning on the CPU and CUDA, and raises naming why where it has none.
import os
import struct
import sys

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# ---- module paths -------------------------------------------------------------------------------------------
def test_kernel_types_module():
    from quadrants.lang import _kernel_types as kt

    assert [m.name for m in kt.KernelBatchedArgType] == ["FLOAT", "INT", "UINT", "QD_ARRAY", "QD_ARRAY_WITH_GRAD"]
    assert kt.KernelBatchedArgType.QD_ARRAY == 3
    observed = kt.SrcLlCacheObservations()
    assert (observed.cache_key_generated, observed.cache_validated, observed.cache_loaded, observed.cache_stored) \
        == (False, False, False, False)
    assert kt.FeLlCacheObservations().cache_hit is False
    assert kt.LaunchObservations().found_kernel_in_materialize_cache is False
    stats = kt.LaunchStats(kernel_args_count_by_type={kt.KernelBatchedArgType.INT: 2})
    assert stats.kernel_args_count_by_type[kt.KernelBatchedArgType.INT] == 2


def test_perf_dispatch_module_is_the_implementation():
    import quadrants.kernels.perf_dispatch as implementation
    from quadrants.lang import _perf_dispatch
    from quadrants.lang._perf_dispatch import DEFAULT_REPEAT_AFTER_COUNT, NUM_FIRST_WARMUP, _parse_force_map

    assert _perf_dispatch is implementation  # patching its state patches what dispatchers read
    assert (NUM_FIRST_WARMUP, DEFAULT_REPEAT_AFTER_COUNT) == (1, 300)
    assert _parse_force_map(" a : b ,, c:d") == {"a": "b", "c": "d"}
    with pytest.raises(ValueError, match="Malformed QD_PERFDISPATCH_FORCE entry 'x'"):
        _parse_force_map("x")


def test_perf_dispatch_force_map_pins_an_implementation(monkeypatch, capsys):
    from quadrants.lang import _perf_dispatch

    monkeypatch.setattr(_perf_dispatch, "_FORCE_MAP", {"op": "second"})
    monkeypatch.setattr(_perf_dispatch, "_ANY_FORCE_ACTIVE", True)
    called = []

    @qd.perf_dispatch(get_geometry_hash=lambda n: n)
    def op(n: int): ...

    @op.register
    def first(n: int):
        called.append("first")

    @op.register
    def second(n: int):
        called.append("second")

    for _ in range(4):
        op(1)
    assert called == ["second"] * 4
    assert "forced to 'second' via QD_PERFDISPATCH_FORCE" in capsys.readouterr().out


def test_perf_dispatch_geometry_tables_by_upstream_names():
    @qd.perf_dispatch(get_geometry_hash=lambda n: n % 2, warmup=0, first_warmup=1, active=1)
    def op(n: int): ...

    @op.register
    def slow(n: int):
        sum(range(20000))

    @op.register
    def fast(n: int):
        pass

    for _ in range(4):  # per implementation: one warmup run, one timed run
        op(2)
    assert set(op._trial_count_by_dispatch_impl_by_geometry_hash) == {0}
    assert sorted(op._trial_count_by_dispatch_impl_by_geometry_hash[0].values()) == [2, 2]
    assert op._fastest_dispatch_impl_by_geometry_hash[0].__name__ == "fast"
    assert op._first_eval_completed == {0}


def _on_cuda():
    return qd.lang.impl.current_cfg().arch == qd.cuda  # QD_TEST_ARCH=cuda runs the suite on CUDA


# ---- streams and events: ordered no-ops on the CPU, CUDA's own on CUDA ------------------------------------------
def test_streams_keep_program_order():
    x = qd.field(qd.f32, shape=8)
    y = qd.field(qd.f32, shape=8)

    @qd.kernel
    def fill(v: qd.f32):
        for i in range(8):
            x[i] = v

    @qd.kernel
    def copy():
        for i in range(8):
            y[i] = x[i] * 2

    s1, s2 = qd.create_stream(), qd.create_stream()
    e = qd.create_event()
    assert isinstance(s1, qd.Stream) and isinstance(e, qd.Event)
    assert (s1.handle != 0, e.handle != 0) == (_on_cuda(), _on_cuda())  # 0 on the CPU
    fill(3.0, qd_stream=s1)
    e.record(s1)
    e.wait(qd_stream=s2)
    copy(qd_stream=s2)
    s2.synchronize()
    e.synchronize()
    assert (y.to_numpy() == 6.0).all()
    fill(1.0, qd_stream=None)  # None: the default stream
    assert (x.to_numpy() == 1.0).all()
    for handle in (s1, s2, e):
        handle.destroy()
        handle.destroy()  # twice is fine


def test_stream_with_autodiff_kernel_raises():
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def compute():
        loss[None] = x[None] ** 2

    with pytest.raises(RuntimeError, match="qd_stream is not compatible with autodiff"):
        compute.grad(qd_stream=qd.create_stream())


def test_stream_context_managers_and_module_path():
    from quadrants.lang.stream import Event, Stream, create_stream, stream_parallel

    assert (Stream, Event, create_stream, stream_parallel) == (qd.Stream, qd.Event, qd.create_stream,
                                                               qd.stream_parallel)
    with qd.create_stream() as s, qd.create_event() as e:
        e.record(s)
    assert s.handle == 0 and e.handle == 0
    with qd.stream_parallel():  # Python scope: nothing happens
        pass


def test_stream_errors():
    with pytest.raises(TypeError, match=r"qd.Stream\(handle\) expects a non-negative int"):
        qd.Stream(-1)
    e = qd.create_event()
    with pytest.raises(TypeError, match=r"qd.Event.record\(qd_stream=...\) expects a qd.Stream or None"):
        e.record("s")
    s = qd.create_stream()
    qd.reset()
    qd.init(arch=qd.cpu)
    with pytest.raises(RuntimeError, match="owning runtime has been destroyed"):
        s.synchronize()
    s.destroy()  # still allowed


def stream_program():
    """Two kernels on two streams, ordered by an event; returns the sum read back and the handles after destroy.
    Run on the CUDA driver emulation by the test below (a module-level function: kernels need a source file)."""
    x = qd.ndarray(qd.f32, shape=(64,))
    y = qd.ndarray(qd.f32, shape=(64,))

    @qd.kernel
    def fill(a: qd.types.ndarray(qd.f32, 1), v: qd.f32):
        for i in range(64):
            a[i] = v

    @qd.kernel
    def copy(a: qd.types.ndarray(qd.f32, 1), b: qd.types.ndarray(qd.f32, 1)):
        for i in range(64):
            b[i] = a[i] + 1

    s1, s2 = qd.create_stream(), qd.create_stream()
    e = qd.create_event()
    assert s1.handle != 0 and s2.handle not in (0, s1.handle) and e.handle != 0
    fill(x, 5.0, qd_stream=s1)
    e.record(s1)
    e.wait(qd_stream=s2)
    copy(x, y, qd_stream=s2.handle)  # a raw handle, as torch's cuda_stream gives one, works too
    s2.synchronize()
    e.synchronize()
    total = float(y.to_numpy().sum())
    for handle in (e, s1, s2):
        handle.destroy()
        handle.destroy()
    return total, s1.handle, e.handle


def test_streams_on_cuda_emulation(tmp_path):
    from emulated_cuda import run_on_cuda_emulation

    out = run_on_cuda_emulation(
        "import quadrants as qd\n"
        "qd.init(arch=qd.cuda)\n"
        "from tests.python import test_upstream_names as t\n"
        "print(*t.stream_program(), qd.clock_freq_hz())\n", tmp_path)
    assert out.split() == [str(6.0 * 64), "0", "0", str(1980000.0 * 1000)]


# ---- qd.stream_parallel() in kernels ---------------------------------------------------------------------------
def test_stream_parallel_blocks_run_their_loops():
    a = qd.field(qd.f32, shape=16)
    b = qd.field(qd.f32, shape=16)

    @qd.kernel
    def two_blocks(v: qd.f32):
        with qd.stream_parallel():
            for i in range(16):
                a[i] = v
            for i in range(16):
                a[i] += 1.0
        with qd.stream_parallel():
            for j in range(16):
                b[j] = v * 2

    two_blocks(3.0)
    assert (a.to_numpy() == 4.0).all() and (b.to_numpy() == 6.0).all()
    assert qd.lang.impl.get_runtime().prog.get_num_offloaded_tasks_on_last_call() == 3  # the loops stay parallel tasks


@pytest.mark.parametrize("body, message", [
    ("with qd.stream_parallel():\n        for i in range(4):\n            a[i] = 1.0\n    for i in range(4):\n"
     + "        a[i] = 2.0", "all top-level statements of the kernel must be"),
    ("with qd.stream_parallel(), qd.stream_parallel():\n        pass", "single context manager"),
    ("with qd.stream_parallel() as s:\n        pass", "'with ... as ...' is not supported"),
    ("with qd.stream_parallel:\n        pass", "requires a call expression"),
    ("with qd.stream_parallel(1):\n        pass", r"qd.stream_parallel\(\) takes no arguments"),
    ("with qd.stream_parallel():\n        with qd.stream_parallel():\n            pass", "cannot be nested"),
    ("for k in range(1):\n        with qd.stream_parallel():\n            pass", "must be top-level statements"),
    ("with open('f'):\n        pass", r"only supports qd.stream_parallel\(\)"),
])
def test_stream_parallel_rejects(tmp_path, body, message):
    kernel = _kernel_from_source(tmp_path, f"@qd.kernel\ndef k():\n    {body}\n")
    with pytest.raises(qd.QuadrantsSyntaxError, match=message):
        kernel()


def test_stream_parallel_rejected_in_funcs_and_graph_kernels(tmp_path):
    module = _module_from_source(tmp_path, """
@qd.func
def helper():
    with qd.stream_parallel():
        for i in range(4):
            a[i] = 1.0

@qd.kernel
def calls_helper():
    helper()

@qd.kernel(graph=True)
def graph_kernel():
    with qd.stream_parallel():
        for i in range(4):
            a[i] = 1.0
""")
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"only be used inside @qd.kernel, not @qd.func"):
        module.calls_helper()
    with pytest.raises(qd.QuadrantsSyntaxError, match="not compatible with graph=True kernels"):
        module.graph_kernel()


def _module_from_source(tmp_path, source):
    """Kernels need their source in a file: write one, import it, with a field `a` of 4 f32 in it."""
    path = tmp_path / f"kernels_{abs(hash(source))}.py"
    path.write_text("import quadrants as qd\na = qd.field(qd.f32, shape=4)\n" + source)
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(path.stem)
    finally:
        sys.path.remove(str(tmp_path))


def _kernel_from_source(tmp_path, source):
    return _module_from_source(tmp_path, source).k


# ---- kernel-language names -------------------------------------------------------------------------------------
def test_frexp_in_kernels_matches_numpy():
    values = np.array([1.4, -3.0, 0.75, 1.0, 0.5, 2.0 ** -130, 1e30, -0.0, 0.0, np.inf, 7.999999], np.float32)
    n = len(values)
    x = qd.ndarray(qd.f32, shape=n)
    mantissa = qd.ndarray(qd.f32, shape=n)
    exponent = qd.ndarray(qd.i32, shape=n)
    x.from_numpy(values)

    @qd.kernel
    def split(x: qd.types.ndarray(qd.f32, 1), m: qd.types.ndarray(qd.f32, 1), e: qd.types.ndarray(qd.i32, 1)):
        for i in range(n):
            a, b = qd.frexp(x[i])
            m[i] = a
            e[i] = b

    split(x, mantissa, exponent)
    want_m, want_e = np.frexp(values)
    np.testing.assert_array_equal(mantissa.to_numpy(), want_m)
    np.testing.assert_array_equal(exponent.to_numpy(), want_e)
    assert qd.frexp(1.4) == np.frexp(1.4)  # Python scope: numpy's


def test_frexp_f64_and_nan():
    @qd.kernel
    def parts(v: qd.f64) -> qd.types.vector(2, qd.f64):
        m, e = qd.frexp(v)
        return qd.Vector([m, qd.f64(e)])

    assert tuple(parts(1e-310)) == (np.frexp(1e-310)[0], float(np.frexp(1e-310)[1]))  # subnormal
    assert tuple(parts(-6.5)) == (-0.8125, 3.0)
    m, e = parts(float("nan"))
    assert np.isnan(m) and e == 0.0


def test_hints_pass_values_through():
    x = qd.field(qd.i32, shape=8)
    y = qd.field(qd.i32, shape=8)
    x.from_numpy(np.arange(8, dtype=np.int32))

    @qd.kernel
    def k():
        qd.cache_read_only(x)
        for i in range(8):
            y[i] = qd.assume_in_range(x[i], i, 0, 1) * 2

    k()
    assert (y.to_numpy() == np.arange(8) * 2).all()
    assert qd.assume_in_range(5, 4, 0, 2) == 5
    with pytest.raises(RuntimeError, match="can only be called inside"):
        qd.cache_read_only(x)


def test_cache_read_only_rejects_values():
    x = qd.field(qd.i32, shape=8)

    @qd.kernel
    def k():
        qd.cache_read_only(x[0])

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.cache_read_only\(\) takes fields or ndarrays"):
        k()


def test_global_thread_idx_and_pyfunc():
    assert qd.global_thread_idx is qd.simt.block.global_thread_idx
    out = qd.field(qd.i32, shape=16)

    @qd.pyfunc
    def twice(v):
        return v * 2

    @qd.kernel
    def k():
        for i in range(16):
            out[i] = twice(i)

    k()
    assert (out.to_numpy() == np.arange(16) * 2).all()
    assert twice(21) == 42  # Python scope runs it as written


def test_clock_names():
    if _on_cuda():
        assert qd.clock_freq_hz() > 1e8
    else:
        with pytest.raises(NotImplementedError, match="clock_freq_hz not implemented for arch x64"):
            qd.clock_freq_hz()

    @qd.kernel
    def k() -> qd.i64:
        return qd.clock_counter()

    assert k() > 0  # raw ticks since an arbitrary start (tests/python/test_clock_counter.py checks more)


# ---- Python-scope names ----------------------------------------------------------------------------------------
def test_dump_compile_config(capsys):
    qd.reset()
    qd.init(arch=qd.cpu, debug=True)
    qd.dump_compile_config()
    lines = capsys.readouterr().out.splitlines()
    assert lines == sorted(lines) and "debug=True" in lines and any(line.startswith("arch=") for line in lines)


def test_enums_and_aliases():
    assert qd.Format.r32f.value == 37 and qd.Format.unknown.value == 0 and len(qd.Format) == 44
    assert qd.DeviceCapability.spirv_has_int64 == "spirv_has_int64"
    assert qd.DeviceCapability.spirv_version_1_5 == "spirv_version=66816"
    assert qd.sparse_matrix_builder is qd.types.sparse_matrix_builder


def test_sparse_grid():
    grid = qd.sparse.grid({"pos": qd.math.vec2, "mass": qd.f32}, shape=(10, 10))
    grid[0, 0].mass = 1.0
    grid[3, 4].pos = qd.math.vec2(1.0, 2.0)
    assert qd.sparse.usage(grid) == pytest.approx(0.02)
    grid3 = qd.sparse.grid({"m": qd.f32}, shape=(4, 4, 4))
    grid3[1, 2, 3].m = 1.0
    assert qd.sparse.usage(grid3) == pytest.approx(1 / 64)
    with pytest.raises(ValueError, match="2-D and 3-D grids"):
        qd.sparse.grid({"m": qd.f32}, shape=(4,))


def test_tools_ply_writer(tmp_path):
    writer = qd.tools.PLYWriter(num_vertices=3, num_faces=1)
    writer.add_vertex_pos(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]), np.zeros(3))
    writer.add_vertex_channel("w", "int", np.array([[1, 2], [3, 4], [5, 6]]))
    writer.add_faces(np.array([0, 1, 2]))
    writer.add_face_id()
    writer.export_frame_ascii(7, str(tmp_path / "mesh.ply"))
    text = (tmp_path / "mesh_000007.ply").read_text().splitlines()
    assert text[:3] == ["ply", "format ascii 1.0", "comment created by PLYWriter"]
    assert "property int w_2" in text and "property list uchar int vertex_indices" in text
    assert text[-2:] == ["0.0 1.0 0.0 5 6 ", "3 0 1 2 0 "]
    writer.export(str(tmp_path / "mesh.ply"))
    data = (tmp_path / "mesh.ply").read_bytes()
    body = data[data.index(b"end_header\n") + len(b"end_header\n"):]
    assert len(body) == 3 * (3 * 4 + 2 * 4) + (1 + 3 * 4 + 4)
    assert struct.unpack("=3f2i", body[20:40]) == (1.0, 0.0, 0.0, 3, 4)
    with pytest.raises(ValueError, match="face indices are invalid"):
        bad = qd.tools.PLYWriter(num_vertices=2, num_faces=1)
        bad.add_vertex_pos(np.zeros(2), np.zeros(2), np.zeros(2))
        bad.add_faces(np.array([0, 1, 5]))
        bad.export(os.devnull)
    assert callable(qd.tools.diagnose.main) and callable(qd.tools.write_vtk)


# ---- names with no meaning here: errors that say why -------------------------------------------------------------
def test_meshes_raise_naming_why():
    with pytest.raises(NotImplementedError, match="qd.Mesh.tri: quadrants has no meshes"):
        qd.Mesh.tri()
    with pytest.raises(NotImplementedError, match="quadrants has no meshes"):
        qd.MeshInstance()
    with pytest.raises(NotImplementedError, match="qd.mesh_patch_idx"):
        qd.mesh_patch_idx()

    @qd.kernel
    def k():
        qd.mesh_local()

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"qd.mesh_local\(\) is not supported: quadrants has no mesh"):
        k()


def test_buffer_view_names_where_upstream_has_them():
    from quadrants.lang.buffer_view import BufferView
    from quadrants.types.buffer_view_type import BufferViewType

    assert BufferView is qd.BufferView and qd.types.BufferViewType is BufferViewType
    annotation = qd.BufferView[qd.f32, "clamp"]
    assert isinstance(annotation, BufferViewType) and (annotation.dtype, annotation.boundary) == (qd.f32, "clamp")
    assert (annotation.ndarray_type.dtype, annotation.ndarray_type.ndim) == (qd.f32, 1)
    data = qd.ndarray(qd.i32, 6)
    view = qd.BufferView(data, offset=1, size=4)
    assert (view.get_ndarray(), view.offset, view.size, view.shape) == (data, 1, 4, (4,))


def test_dir_has_upstreams_public_names():
    names = ["Stream", "Event", "create_stream", "create_event", "stream_parallel", "sparse", "sparse_matrix_builder",
             "tools", "clock_counter", "clock_freq_hz", "global_thread_idx", "assume_in_range", "frexp",
             "cache_read_only", "pyfunc", "dump_compile_config", "DeviceCapability", "Format", "BufferView", "Mesh",
             "MeshInstance", "mesh_local", "mesh_patch_idx"]
    assert [n for n in names if n not in dir(qd)] == []
