# tests/python/test_cuda_codegen.py: kernels written as users write them compile to CUDA CUBINs with NVRTC (no GPU).
#
# The frontend translates each kernel to IR text for one argument specialization (kernel.ir), and
# _core.compile_kernel_cuda compiles that for sm_90; every test skips when NVRTC cannot be found.
# Kernels that only need to compile live in the CPU tests: the test command sets QD_CHECK_CUDA=1, which
# compiles every kernel they run for CUDA too (e.g. the while/break/continue kernel of
# test_kernel_language.py). The tests here check CUDA-specific structure: tasks, frames, fallbacks.
import os
import subprocess
import sys

import pytest

import quadrants as qd
from quadrants.runtime import _core

pytestmark = pytest.mark.skipif(not _core.nvrtc_available(), reason="NVRTC not found")


def array(dtype="f32", ndim=1, element_shape=(), contiguous=True, writable=True):
    return ("array", dtype, ndim, tuple(element_shape), contiguous, writable)


def scalar(dtype="i32"):
    return ("scalar", dtype)


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path))
    qd.init(arch=qd.cpu)
    yield


def compile_cuda(kernel, *spec, templates=(), arch=(9, 0)):
    compiled = _core.compile_kernel_cuda(kernel.ir(spec, templates), *arch)
    assert not compiled.is_ptx
    assert compiled.image_size > 0 and compiled.image[:4] == b"\x7fELF"
    return compiled


def square_kernel():
    @qd.kernel
    def square(inp: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
        for i in range(32):
            out[i] = inp[i] * inp[i]

    return square


def test_seed_square_is_one_parallel_task():
    compiled = compile_cuda(square_kernel(), array(), array())
    assert compiled.name == "square"
    assert compiled.tasks == [("qd_square_task0", True, 128)]
    assert compiled.returns is None and compiled.frame_bytes == 0
    assert "blockIdx.x" in compiled.source and "QD_RUNTIME_H" in compiled.source
    assert compiled.param_written == [False, True]  # host copies of `inp` are never written back


def test_reduction_returns_through_the_frame():
    @qd.kernel
    def total(x: qd.types.ndarray()) -> qd.f64:
        s = 0.0
        for i in x:
            s += x[i]
        return s

    compiled = compile_cuda(total, array("f64"))
    assert compiled.returns == "f64"
    assert [parallel for _, parallel, _ in compiled.tasks] == [False, True, False]
    assert compiled.frame_bytes >= 8
    assert compiled.param_written == [False]  # the atomic adds go to a local, not to x


def test_scalar_params_and_return_without_loops():
    @qd.kernel
    def affine(a: qd.f32, b: qd.i32) -> qd.f32:
        return a * 2 + b

    compiled = compile_cuda(affine, scalar("f32"), scalar("i32"))
    assert compiled.tasks == [("qd_affine_task0", False, 1)]


@pytest.mark.parametrize("dtype", ["f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"])
@pytest.mark.parametrize("ndim", [1, 3])
def test_fill_every_dtype_and_ndim(dtype, ndim):
    @qd.kernel
    def fill(x: qd.types.ndarray()):
        for I in qd.grouped(x):
            x[I] = 7

    compile_cuda(fill, array(dtype, ndim))


def test_ranges_ndrange_and_struct_for():
    @qd.kernel
    def k(out: qd.types.ndarray(ndim=2), a: qd.i32, b: qd.i32):
        for i, j in out:
            out[i, j] = 0
        for i in range(a, b):
            out[i, 0] = i
        for i, j in qd.ndrange((1, 3), (1, 4)):
            out[i, j] = 10 * i + j

    compiled = compile_cuda(k, array("i32", 2), scalar(), scalar())
    assert len(compiled.tasks) == 3


def test_division_modulo_power_comparisons_and_casts():
    @qd.kernel
    def k(a: qd.types.ndarray(), b: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in a:
            out[i, 0] = a[i] // b[i]
            out[i, 1] = a[i] % b[i]
            out[i, 2] = a[i] / b[i]
            out[i, 3] = a[i] ** 2
            out[i, 4] = 0 < a[i] <= 2 and not b[i] > 2 or a[i] == -1
            out[i, 5] = qd.cast(a[i], qd.f32) + qd.f64(qd.i64(b[i] * 2)) + (a[i] if a[i] > 0 else -a[i])

    compile_cuda(k, array("i32"), array("i32"), array("f64", 2))


def test_math_functions():
    @qd.kernel
    def k(x: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in x:
            v = x[i]
            out[i, 0] = qd.sqrt(v)
            out[i, 1] = qd.sin(v) + qd.cos(v) + qd.tan(v)
            out[i, 2] = qd.exp(v) + qd.log(v)
            out[i, 3] = qd.abs(-v) + qd.floor(v) + qd.ceil(v)
            out[i, 4] = qd.min(v, 1.0) + qd.max(v, 1.0, 2.0) + qd.atan2(v, 2.0)
            out[i, 5] = qd.math.clamp(v, 0.5, 1.0) + qd.math.fract(v) + qd.math.sign(v - 1.0)

    for dtype in ("f16", "f32", "f64"):
        compile_cuda(k, array(dtype), array(dtype, 2))


def test_shape_static_and_funcs_with_early_return():
    weights = (1, 10, 100)

    @qd.func
    def classify(v) -> qd.i32:
        if v < 0:
            return -1
        if v == 0:
            return 0
        return 1

    @qd.kernel
    def k(x: qd.types.ndarray(ndim=2), out: qd.types.ndarray()):
        for i in range(x.shape[0]):
            s = 0
            for j in qd.static(range(3)):
                if qd.static(j != 1):
                    s += x[i, j] * weights[j]
            out[i] = s + x.shape[1] * 1000 + classify(x[i, 0])

    compile_cuda(k, array("i32", 2), array("i32"))


def test_vectors_and_matrices_contiguous_and_strided():
    @qd.kernel
    def k(p: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), out: qd.types.ndarray(dtype=qd.math.vec3, ndim=1),
          lengths: qd.types.ndarray()):
        for i in p:
            v = p[i]
            m = qd.Matrix([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
            r = m @ v
            c = v.cross(qd.Vector([0.0, 0.0, 1.0]))
            out[i] = r + c * 2 - m.transpose() @ r
            lengths[i] = v.norm() + v.dot(r) + r[2]

    compile_cuda(k, array("f32", 1, (3,)), array("f32", 1, (3,)), array("f32"))
    compile_cuda(k, array("f32", 1, (3,), False, False), array("f32", 1, (3,), False), array("f32", 1, (), False))


def test_atomics_of_every_op():
    @qd.kernel
    def k(x: qd.types.ndarray(), counter: qd.types.ndarray(), slots: qd.types.ndarray()):
        for i in x:
            counter[0] += 1
            slot = qd.atomic_add(counter[1], 1)
            slots[slot] = 1
            qd.atomic_max(counter[2], x[i])
            qd.atomic_min(counter[3], x[i])
            qd.atomic_sub(counter[4], x[i])
            qd.atomic_or(counter[5], 1 << (i % 8))
            qd.atomic_and(counter[6], x[i])
            qd.atomic_xor(counter[7], x[i])

    for dtype in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
        compile_cuda(k, array(dtype), array(dtype), array("i32"))


def test_float_atomics_and_local_reductions():
    @qd.kernel
    def k(x: qd.types.ndarray()) -> qd.f32:
        lo = 1e30
        s = 0.0
        for i in x:
            qd.atomic_min(lo, x[i])
            s += x[i]
            qd.atomic_max(x[0], x[i])
            x[i] -= 1
        return lo + s

    for dtype in ("f16", "f32", "f64"):
        compile_cuda(k, array(dtype))


def test_loop_config_block_dim_and_serialize():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        qd.loop_config(block_dim=256)
        for i in x:
            x[i] = i
        qd.loop_config(serialize=True)
        for i in range(1, x.shape[0]):
            x[i] += x[i - 1]

    compiled = compile_cuda(k, array("i64"))
    assert [(parallel, block_dim) for _, parallel, block_dim in compiled.tasks] == [(True, 256), (False, 1)]


def test_a_named_loop_names_its_task_function():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        qd.loop_config(name="fill x/2")  # upstream's loop_name, shown by profilers; not a C identifier as given
        for i in x:
            x[i] = i
        for i in x:
            x[i] += 1

    compiled = compile_cuda(k, array("i32"))
    assert [name for name, _, _ in compiled.tasks] == ["qd_k_task0_fill_x_2", "qd_k_task1"]
    assert "void qd_k_task0_fill_x_2(" in compiled.source


def test_template_arguments_and_fields_as_globals():
    field = qd.field(qd.f32, shape=(4, 4))
    velocity = qd.Vector.field(2, qd.f32, shape=(8,))

    @qd.kernel
    def fill(f: qd.template(), value: qd.f32, scale: qd.template()):
        for i, j in f:
            f[i, j] = value * scale + i

    @qd.kernel
    def step(dt: qd.f32):
        for i in velocity:
            velocity[i] = qd.Vector([i, -i]) * dt

    compile_cuda(fill, scalar("f32"), templates=(field, 3))
    compile_cuda(step, scalar("f32"))


def test_debug_mode_bounds_checks_and_asserts():
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.i32) -> qd.i32:
        total = 0
        for i in range(n):
            assert x[i] >= 0, "x must not be negative"
            total += x[i + 1]
        return total

    compiled = compile_cuda(k, array("i32"), scalar())
    assert "qd_checked_offset" in compiled.source and "qd_error_raised(ctx)" in compiled.source


def test_sm80_and_ptx_fallback_for_an_unknown_architecture():
    kernel = square_kernel()
    compile_cuda(kernel, array(), array(), arch=(8, 0))
    ptx = _core.compile_kernel_cuda(kernel.ir((array(), array())), 9, 9)
    assert ptx.is_ptx and ptx.image.startswith(b"//")


def test_generate_cuda_source_needs_no_nvrtc():
    source = _core.generate_cuda_source(square_kernel().ir((array(), array())))
    assert 'extern "C" __global__ void qd_square_task0(QD_ARGS_PARAM(2), char* frame' in source
    assert '#include "qd_runtime.h"' in source


def test_missing_nvrtc_says_where_it_looked():
    code = (
        "import quadrants as qd\n"
        "from quadrants.runtime import _core\n"
        "assert not _core.nvrtc_available()\n"
        "try:\n"
        "    _core.compile_kernel_cuda('(kernel k (options) (params) (returns void) (body))', 9, 0)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    env = dict(os.environ, QD_NVRTC_PATH="/nonexistent/nvrtc")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "NVRTC (libnvrtc.so) was not found" in out
    assert "pip install nvidia-cuda-nvrtc" in out
    assert "/nonexistent/nvrtc/libnvrtc.so.13" in out


@pytest.mark.parametrize("count, by_value", [(16, True), (17, False)])
def test_kernels_with_few_parameters_take_them_by_value(count, by_value):
    # 16 QdArgs (240 bytes each) and the three pointers fit the 4 KB of kernel parameters every device takes; a
    # launch of such a kernel uploads no argument buffer. More go through the launch slot, as before.
    params = " ".join(f"(array a{k} f32 1 () 1 1)" for k in range(count))
    body = "(store a0 ((var i)) () (load a{} ((var i)) ()))".format(count - 1)
    text = (f"(kernel many (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0)) (params {params}) "
            f"(returns void) (body (parallel_for (i) ((const int 4)) (config (block_dim 0) (serialize 0)) ({body}))))")
    compiled = _core.compile_kernel_cuda(text, 9, 0)
    assert compiled.args_by_value == by_value
    signature = f"QD_ARGS_PARAM({count})" if by_value else "const QdArg* args"
    assert f'void qd_many_task0({signature}, char* frame' in compiled.source
