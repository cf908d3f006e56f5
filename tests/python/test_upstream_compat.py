# tests/python/test_upstream_compat.py: what upstream Quadrants' test helpers and tests ask of our package
# (tests/test_utils.py, tests/python/conftest.py), checked from the semantics; see scripts/upstream_tests.py.
import copy
import importlib
import os
import platform
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd
from quadrants.lang import impl


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# --- the module paths upstream's test_utils imports -------------------------------------------------
def test_the_arch_names_import_from_quadrants_lang():
    from quadrants.lang import amdgpu, cpu, cuda, gpu, metal, vulkan

    assert (cpu, cuda, gpu, amdgpu, metal, vulkan) == (qd.cpu, qd.cuda, qd.gpu, qd.amdgpu, qd.metal, qd.vulkan)


def test_lang_misc_answers_what_this_machine_supports():
    from quadrants.lang import misc

    assert misc.is_arch_supported(qd.cpu)
    assert not any(misc.is_arch_supported(a) for a in (qd.vulkan, qd.metal, qd.amdgpu))
    assert misc.get_host_arch_list() == [qd.cpu]
    assert misc.is_extension_supported(qd.cpu, qd.extension.data64)
    assert not misc.is_extension_supported(qd.cpu, qd.extension.mesh)
    assert misc.is_extension_enabled(qd.extension.assertion)


def test_lib_core_maps_names_to_archs_and_back():
    from quadrants._lib import core

    assert core.arch_from_name("cuda") is qd.cuda and core.arch_from_name("vulkan") is qd.vulkan
    assert core.arch_from_name(core.arch_name(qd.cpu)) is qd.cpu
    assert core.host_arch() is qd.cpu
    with pytest.raises(ValueError, match=r"arch_from_name\('tpu'\): no architecture has that name"):
        core.arch_from_name("tpu")
    assert core.is_extension_supported(qd.cpu, qd.extension.assertion)
    assert not (core.with_metal() or core.with_vulkan() or core.with_amdgpu())
    assert core.with_cuda() == (qd.runtime._core.cuda_status() == "")
    assert [core.data_type_size(t) for t in (qd.u1, qd.i8, qd.f16, qd.i32, qd.f64)] == [1, 1, 2, 4, 8]
    assert core.QuadrantsRuntimeError is qd.QuadrantsRuntimeError


def test_lib_core_max_num_indices_is_what_a_matrix_field_may_have():
    from quadrants._lib import core

    most = core.get_max_num_indices()
    assert most == qd.runtime._core.max_ndim - 2 >= 4
    x = qd.Matrix.field(2, 2, dtype=qd.i32, shape=(2,) * most)  # the element's two dims fit beside them

    @qd.kernel
    def fill():
        for I in qd.grouped(x):
            x[I] += qd.Matrix([[I.sum(), I[0]], [1, 2]])

    fill()
    assert x[(1,) * most][0, 0] == most and x[(1,) + (0,) * (most - 1)][0, 1] == 1
    with pytest.raises(ValueError, match="at most"):
        qd.Matrix.field(2, 2, dtype=qd.i32, shape=(2,) * (most + 1))


def test_lib_core_test_threading_runs_the_thread_pool_self_check():
    from quadrants._lib import core

    assert core.test_threading() is True
    assert qd.runtime._core.check_thread_pool(num_threads=3, rounds=10) is True


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="the host CPU is not x86-64")
def test_the_host_cpu_is_named_as_upstream_names_it():
    # Upstream's test ids read arch.name (test_x[arch=x64]); the repr stays qd.cpu.
    assert qd.cpu.name == "x64" and repr(qd.cpu) == "qd.cpu"
    assert copy.deepcopy(qd.cpu) is qd.cpu


def test_lang_util_says_whether_torch_is_importable(monkeypatch):
    from quadrants.lang import util

    assert util.has_pytorch() == (importlib.util.find_spec("torch") is not None)
    monkeypatch.setenv("QD_ENABLE_TORCH", "0")
    assert not util.has_pytorch()
    assert util.to_numpy_type(qd.f32) is np.float32 and util.to_numpy_type(qd.u8) is np.uint8


def test_quadrants_math_is_an_import_path_for_qd_math():
    from quadrants.math import ivec3, vec3

    assert sys.modules["quadrants.math"] is qd.math
    assert vec3 is qd.math.vec3 and ivec3 is qd.math.ivec3


@pytest.mark.cpu_only  # checks that qd.cpu stays the CPU, which QD_TEST_ARCH=cuda swaps on purpose
def test_upstream_test_utils_init_options_are_accepted():
    # What upstream's conftest passes to every qd.init().
    with pytest.warns(UserWarning):
        qd.init(arch=qd.cpu, enable_fallback=False, print_full_traceback=True)
    assert impl.current_cfg().arch is qd.cpu


# --- load_kernel_from_string -------------------------------------------------------------------------
def test_load_kernel_from_string_runs_the_kernel_and_forgets_the_module():
    from quadrants._test_tools.load_kernel_string import load_kernel_from_string

    source = textwrap.dedent("""
        import quadrants as qd

        @qd.kernel
        def add_one(a: qd.types.ndarray()):
            for i in range(a.shape[0]):
                a[i] += 1
        """)
    a = np.arange(4, dtype=np.int32)
    with load_kernel_from_string(source, "add_one") as add_one:
        add_one(a)
        path = sys.modules["add_one"].__file__
    assert a.tolist() == [1, 2, 3, 4]
    assert "add_one" not in sys.modules and not os.path.exists(path)


# --- qd.real_func and qd.Template --------------------------------------------------------------------
def test_real_func_computes_what_func_does():
    @qd.real_func
    def twice(x: qd.i32) -> qd.i32:
        return x * 2

    @qd.kernel
    def run(a: qd.Template) -> qd.i32:
        return twice(a[0]) + 1

    a = qd.field(qd.i32, shape=2)
    a[0] = 20
    assert run(a) == 41


def test_template_class_is_a_template_annotation():
    @qd.kernel
    def bump(a: qd.Template, b: qd.template()):
        a[1] += b[0]

    a, b = qd.field(qd.i32, shape=2), qd.field(qd.i32, shape=1)
    b[0] = 5
    bump(a, b)
    assert a[1] == 5 and qd.Template is type(qd.template())


# --- Python-scope indexing errors --------------------------------------------------------------------
def test_field_with_the_wrong_number_of_indices_is_an_index_and_assertion_error():
    x = qd.field(qd.i32, shape=(1, 2, 3))
    with pytest.raises(IndexError, match=r"Expected 3 indices for shape \(1, 2, 3\), but got 2"):
        x[0, 0] = 1
    with pytest.raises(AssertionError, match="Slicing is not supported on qd.field"):
        x[0, 0]


def test_ndarray_with_the_wrong_number_of_indices_is_a_quadrants_index_error():
    from quadrants.lang.exception import QuadrantsIndexError

    x = qd.ndarray(qd.f32, shape=(4, 4))
    with pytest.raises(QuadrantsIndexError, match="Expected 2 indices .* a 2d ndarray indexed with 1d indices"):
        x[0]
    with pytest.raises(IndexError, match="2d ndarray indexed with 3d indices"):
        x[0, 0, 0]


@pytest.mark.parametrize("make", [lambda: qd.field(qd.i32, shape=(2, 2)), lambda: qd.ndarray(qd.i32, shape=(2, 2))])
def test_slicing_a_container_names_the_illegal_element(make):
    x = make()
    with pytest.raises(TypeError, match=r"Detected illegal element of type: <class 'slice'>\. Please be aware that "
                                        r"slicing a qd\.(field|ndarray) is not supported so far\."):
        x[0, :]


# --- impl.get_runtime() ------------------------------------------------------------------------------
def test_default_ip_set_on_the_runtime_is_used_by_later_kernels():
    impl.get_runtime().default_ip = qd.i64
    assert qd.cfg.default_ip is qd.i64 and qd.cfg.default_up is qd.u64

    @qd.kernel
    def big() -> int:
        return 1 << 40

    assert big() == 1 << 40
    impl.get_runtime().default_fp = qd.f64
    assert impl.get_runtime().default_fp is qd.f64 and qd.cfg.default_fp is qd.f64


def test_set_default_ip_and_fp_take_upstreams_choices_and_reach_later_kernels():
    impl.get_runtime().set_default_ip(qd.i64)
    assert qd.cfg.default_ip is qd.i64 and qd.cfg.default_up is qd.u64 and impl.get_runtime().default_ip is qd.i64

    @qd.kernel
    def floor_div() -> int:
        a = 1e15 + 1e9
        return (a // 1e10) * (1 << 30)  # an i64 result: i32 would wrap

    assert floor_div() == 100000 << 30
    impl.get_runtime().set_default_fp(qd.f64)
    assert qd.cfg.default_fp is qd.f64
    with pytest.raises(ValueError, match=r"set_default_ip\(...\) expects qd.i32 or qd.i64, but got qd.u32"):
        impl.get_runtime().set_default_ip(qd.u32)  # the attribute takes it; upstream's setter does not
    with pytest.raises(ValueError, match=r"set_default_fp\(...\) expects qd.f16, qd.f32 or qd.f64, but got qd.i32"):
        impl.get_runtime().set_default_fp(qd.i32)
    assert qd.cfg.default_ip is qd.i64 and qd.cfg.default_fp is qd.f64


def test_default_types_take_only_their_kind():
    with pytest.raises(ValueError, match=r"default_ip = \.\.\. expects an integer dtype, but got qd.f32"):
        impl.get_runtime().default_ip = qd.f32
    with pytest.raises(ValueError, match=r"default_fp = \.\.\. expects a floating-point dtype, but got 'x'"):
        impl.get_runtime().default_fp = "x"


def test_prog_counts_live_ndarrays():
    prog = impl.get_runtime().prog
    a = qd.ndarray(qd.f32, shape=3)
    assert prog._get_num_ndarrays() == 1
    del a
    assert prog._get_num_ndarrays() == 0


def test_runtime_ndarrays_is_the_set_of_live_ndarrays_and_reset_empties_their_handles():
    import gc

    runtime = impl.get_runtime()
    kept = qd.ndarray(qd.i32, shape=(5,))
    dropped = qd.Vector.ndarray(3, qd.f32, shape=(2,))
    qd.field(qd.i32, shape=(3,))  # fields are not ndarrays
    assert set(runtime.ndarrays) == {kept, dropped}
    dropped = None
    gc.collect()
    assert list(runtime.ndarrays) == [kept] and kept.arr.shape == [5] and kept.shape == (5,)
    qd.reset()
    assert len(impl.get_runtime().ndarrays) == 0
    assert kept.arr is None and kept.shape is None


def test_lib_utils_reaches_the_core_queries_upstream_tests_use(tmp_path):
    core = qd._lib.utils.import_qd_python_core()
    version = f"{core.get_version_major()}.{core.get_version_minor()}.{core.get_version_patch()}"
    qd.init(arch=qd.cpu, require_version=version)
    with pytest.raises(RuntimeError, match="does not satisfy it"):
        qd.init(arch=qd.cpu, require_version=f"{core.get_version_major()}.{core.get_version_minor() + 1}.0")
    before = os.environ.get("XDG_CACHE_HOME")
    try:
        os.putenv("XDG_CACHE_HOME", str(tmp_path))  # the C environment only: upstream's core reads that one
        assert core.get_repo_dir() == f"{tmp_path}/quadrants/"
    finally:
        if before is None:
            os.unsetenv("XDG_CACHE_HOME")
        else:
            os.putenv("XDG_CACHE_HOME", before)
    assert qd._lib.utils.get_os_name() in ("linux", "osx", "win", "unix")


def test_prog_max_reducer_dispatch_count_stays_zero_through_a_dynamic_loop_gradient():
    # upstream counts the kernels that size its AD stacks; ours have a fixed capacity, so none is dispatched
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True)
    prog = impl.get_runtime().prog
    prog._reset_max_reducer_dispatch_count()
    x = qd.field(qd.f32, shape=2, needs_grad=True)
    y = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def compute(n: qd.i32):
        for i in x:
            v = x[i]
            for _ in range(n):
                v = v * 0.5
            y[None] += v

    compute(3)
    y.grad[None] = 1.0
    compute.grad(3)
    assert prog._get_max_reducer_dispatch_count() == 0
    assert x.grad.to_numpy().tolist() == [0.125, 0.125]


# --- ndarrays ----------------------------------------------------------------------------------------
def test_ndarray_subscript_annotation_is_ndarray_of_dtype_and_ndim():
    annotation = qd.types.NDArray[qd.f32, 2]
    assert isinstance(annotation, qd.types.ndarray) and (annotation.dtype, annotation.ndim) == (qd.f32, 2)
    assert qd.types.NDArray[qd.i32].ndim is None

    @qd.kernel
    def double(a: qd.types.NDArray[qd.i32, 1]):
        for i in a:
            a[i] *= 2

    a = np.array([1, 2, 3], dtype=np.int32)
    double(a)
    assert a.tolist() == [2, 4, 6]


@pytest.mark.parametrize("make", [lambda: qd.ndarray(qd.i32, shape=4), lambda: qd.Vector.ndarray(3, qd.f64, 4)])
def test_deepcopy_of_an_ndarray_owns_its_elements(make):
    x = make()
    x.fill(1)
    y = copy.deepcopy(x)
    x.fill(5)
    assert type(y) is type(x) and y.shape == x.shape and y.dtype == x.dtype
    assert (y.to_numpy() == 1).all()


def test_ndarray_element_size_and_count():
    assert (qd.ndarray(qd.i32, 8)._get_element_size(), qd.ndarray(qd.i32, 8)._get_nelement()) == (4, 8)
    vectors = qd.Vector.ndarray(10, qd.f64, (5, 2))
    assert (vectors._get_element_size(), vectors._get_nelement()) == (80, 10)


# --- smaller helpers upstream's tests call ----------------------------------------------------------
def test_dtype_to_string_is_its_short_name():
    assert [t.to_string() for t in (qd.f32, qd.i64, qd.u1)] == ["f32", "i64", "u1"]
    # str() too, as upstream's (f"{dtype}" and print show it); repr() keeps the qd. prefix, for messages
    assert [str(t) for t in (qd.f32, qd.i64, qd.u1)] == ["f32", "i64", "u1"]
    assert f"{qd.u8} {qd.u8!r}" == "u8 qd.u8"


def test_has_clangpp_looks_on_path(monkeypatch):
    from quadrants.lang import util

    monkeypatch.setenv("PATH", "")
    assert util.has_clangpp() is False


@pytest.mark.cpu_only  # checks that the arch stays qd.cpu, which QD_TEST_ARCH=cuda swaps on purpose
def test_qd_init_same_arch_keeps_the_arch_and_takes_new_options():
    from quadrants._test_tools import qd_init_same_arch

    qd_init_same_arch(debug=True)
    assert qd.cfg.arch is qd.cpu and qd.cfg.debug


@pytest.mark.parametrize("make", [lambda: qd.ndarray(qd.f16, shape=(3, 2)), lambda: qd.Matrix.ndarray(2, 3, qd.i64, 4)])
def test_an_ndarray_pickles_by_value(make):
    import pickle

    x = make()
    x.from_numpy(np.arange(x.to_numpy().size).reshape(x.to_numpy().shape))
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is type(x) and y.dtype is x.dtype and y.shape == x.shape
    assert (y.to_numpy() == x.to_numpy()).all()
    x.fill(0)
    assert y.to_numpy().any()
