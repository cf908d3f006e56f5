# tests/python/test_api_surface.py: upstream Quadrants' runtime names: modules, exceptions, logging, dtypes, archs.
import sys

import numpy as np
import pytest

import quadrants as qd
from quadrants.lang import impl


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()
    qd.set_logging_level("info")


# --- names at the top level -------------------------------------------------------------------------
# Upstream's top-level names that belong to the runtime surface (the kernel language and the data
# model are checked by their own tests).
RUNTIME_NAMES = [
    "Backend", "CRITICAL", "DEBUG", "ERROR", "Field", "INFO", "Layout", "MatrixField", "Ndarray", "TRACE", "Tensor",
    "WARN", "QuadrantsAssertionError", "QuadrantsCompilationError", "QuadrantsNameError", "QuadrantsRuntimeError",
    "QuadrantsRuntimeTypeError", "QuadrantsSyntaxError", "QuadrantsTypeError", "amdgpu", "arm64", "cpu", "cuda",
    "extension", "f16", "f32", "f64", "float16", "float32", "float64", "gpu", "i8", "i16", "i32", "i64", "init",
    "int8", "int16", "int32", "int64", "is_logging_effective", "lang", "metal", "python", "reset",
    "set_logging_level", "sync", "types", "u1", "u8", "u16", "u32", "u64", "uint1", "uint8", "uint16", "uint32",
    "uint64", "vulkan", "x64", "x86_64",
]


@pytest.mark.parametrize("name", RUNTIME_NAMES)
def test_upstream_runtime_name_exists(name):
    assert hasattr(qd, name)


def test_long_dtype_names_are_the_short_ones():
    pairs = [(qd.int8, qd.i8), (qd.int16, qd.i16), (qd.int32, qd.i32), (qd.int64, qd.i64), (qd.uint1, qd.u1),
             (qd.uint8, qd.u8), (qd.uint16, qd.u16), (qd.uint32, qd.u32), (qd.uint64, qd.u64),
             (qd.float16, qd.f16), (qd.float32, qd.f32), (qd.float64, qd.f64)]
    assert all(long is short for long, short in pairs)


def test_container_classes_are_exported():
    assert isinstance(qd.field(qd.f32, shape=2), qd.Field)
    assert isinstance(qd.Vector.field(3, qd.f32, shape=2), (qd.Field, qd.MatrixField))
    assert isinstance(qd.ndarray(qd.f32, shape=2), qd.Ndarray)


def test_layout_and_backend_enums():
    assert (qd.Layout.AOS, qd.Layout.SOA) == (0, 1)
    assert (qd.Backend.FIELD, qd.Backend.NDARRAY) == (0, 1)


def test_tensor_wraps_a_container():
    field = qd.field(qd.f32, shape=(2, 3))
    tensor = qd.Tensor(field)
    assert tensor._unwrap() is field and isinstance(field, qd.ScalarField)
    assert tensor.shape == (2, 3) and tensor.backend is qd.Backend.FIELD
    tensor.fill(1.5)
    assert tensor.to_numpy().tolist() == [[1.5] * 3] * 2
    assert qd.Tensor(qd.ndarray(qd.i32, shape=4)).backend is qd.Backend.NDARRAY
    with pytest.raises(TypeError, match=r"qd.Tensor\(...\) requires a qd.field or qd.ndarray, but got list."):
        qd.Tensor([1, 2])
    with pytest.raises(TypeError, match=r"requires a qd.field or qd.ndarray, but got a qd.Tensor, which is wrapped"):
        qd.Tensor(tensor)  # as upstream: a wrapper of a wrapper would confuse identity
    assert repr(qd.tensor(qd.i32, (2, 3), layout=(1, 0))) == "qd.Tensor(backend=NDARRAY, shape=(2, 3), dtype=qd.i32, layout=(1, 0))"


def test_tensor_grad_is_wrapped_once():
    tensor = qd.tensor(qd.f32, 4, needs_grad=True, backend=qd.Backend.FIELD)
    assert isinstance(tensor.grad, qd.Tensor) and tensor.grad is tensor.grad
    assert tensor.grad._unwrap() is tensor._unwrap().grad


@pytest.mark.parametrize("backend", [qd.Backend.FIELD, qd.Backend.NDARRAY])
def test_tensor_grad_and_dual_are_none_without_them(backend):
    tensor = qd.tensor(qd.i32, (4,), backend=backend)
    assert tensor.grad is None and tensor.dual is None


def test_extensions():
    assert qd.is_extension_supported(qd.cpu, qd.extension.assertion)
    assert not qd.is_extension_supported(qd.vulkan, qd.extension.assertion)
    with pytest.raises(ValueError, match="expects a qd.extension member, but got 'warp_speed'"):
        qd.is_extension_supported(qd.cpu, "warp_speed")
    qd.init(arch=qd.cpu)
    assert not qd.is_extension_enabled(qd.extension.adstack)  # as upstream: it also needs the option
    assert not qd.is_extension_enabled(qd.extension.mesh)
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True)
    assert qd.is_extension_enabled(qd.extension.adstack)  # for the arch qd.init chose


# --- exceptions -------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, bases", [
    (qd.QuadrantsSyntaxError, (qd.QuadrantsCompilationError, SyntaxError)),
    (qd.QuadrantsTypeError, (qd.QuadrantsCompilationError, TypeError)),
    (qd.QuadrantsNameError, (qd.QuadrantsCompilationError, NameError)),
    (qd.lang.exception.QuadrantsIndexError, (qd.QuadrantsCompilationError, IndexError)),
    (qd.QuadrantsRuntimeError, (RuntimeError,)),
    (qd.QuadrantsAssertionError, (qd.QuadrantsRuntimeError, AssertionError)),
    (qd.QuadrantsRuntimeTypeError, (qd.QuadrantsRuntimeError, TypeError)),
    (qd.lang.exception.QuadrantsOutOfBoundError, (qd.QuadrantsAssertionError, IndexError)),
])
def test_exception_bases_match_upstream(cls, bases):
    assert all(issubclass(cls, base) for base in bases)
    assert not issubclass(qd.QuadrantsCompilationError, RuntimeError)


def test_a_kernel_syntax_error_is_caught_as_pythons_syntax_error_and_keeps_its_text():
    @qd.kernel
    def uses_while_else(n: qd.i32):
        while n > 0:
            n -= 1
        else:
            n = 1

    with pytest.raises(SyntaxError) as info:
        uses_while_else(3)
    error = info.value
    assert isinstance(error, qd.QuadrantsSyntaxError)
    assert str(error).startswith(f"{__file__}:{error.line}:") and "^" in str(error)
    assert (error.filename, error.lineno, error.text) == (__file__, error.line, error.source_line)


def test_exceptions_built_from_a_message_show_just_the_message():
    assert str(qd.QuadrantsSyntaxError("bad syntax")) == "bad syntax"
    assert str(qd.QuadrantsTypeError("bad type")) == "bad type"
    assert str(qd.QuadrantsRuntimeTypeError.get(0, "f32", "str")) == (
        "Argument 0 (type=str) cannot be converted into required type f32")


# --- logging ----------------------------------------------------------------------------------------
def test_logging_goes_through_pythons_quadrants_logger(caplog):
    qd._logging.warn("value {} of {name}", 3, name="x")
    qd._logging.debug("hidden at info")  # the quadrants logger's own level is still 'info'
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [("quadrants", "WARNING", "value 3 of x")]
    qd.set_logging_level(qd.TRACE)
    qd._logging._get_logging(qd.TRACE)("fine-grained")
    assert caplog.records[-1].levelname == "TRACE" and caplog.records[-1].getMessage() == "fine-grained"


def test_logging_levels_and_a_bad_level():
    qd.set_logging_level(qd.WARN)
    assert [qd.is_logging_effective(level) for level in qd._logging.supported_log_levels] == [
        False, False, False, True, True, True]
    with pytest.raises(ValueError, match=r"qd.set_logging_level\(\) expects one of .*'critical', but got 'verbose'"):
        qd.set_logging_level("verbose")


def test_applications_can_replace_the_logging_functions(monkeypatch):
    # Genesis redirects quadrants' messages by assigning qd._logging.info and friends.
    seen = []
    monkeypatch.setattr(qd._logging, "info", seen.append)
    qd.init(arch=qd.cpu)
    assert seen == [f"Starting on arch={qd.cfg.arch.name}"]


# --- modules at upstream's paths ---------------------------------------------------------------------
def test_quadrants_types_package():
    import quadrants.types.primitive_types as primitive_types
    from quadrants.types import matrix, ndarray, vector  # noqa: F401

    assert qd.types is sys.modules["quadrants.types"] and qd.types.primitive_types is primitive_types
    assert qd.f32 in primitive_types.real_types and float in primitive_types.real_types
    assert qd.u1 in primitive_types.integer_types and qd.f16 not in primitive_types.integer_types
    assert primitive_types.all_types == primitive_types.real_types | primitive_types.integer_types
    assert qd.types.f32 is qd.f32 and qd.types.ndarray is qd.types.annotations.ndarray


def test_type_predicates():
    types = qd.types
    assert [types.is_integral(t) for t in (qd.i8, qd.u1, qd.u64, qd.f32)] == [True, True, True, False]
    assert [types.is_real(t) for t in (qd.f16, qd.f64, qd.i32)] == [True, True, False]
    assert [types.is_signed(t) for t in (qd.i32, qd.u32)] == [True, False]
    assert types.is_tensor(qd.types.vector(3, qd.f32)) and not types.is_tensor(qd.f32)
    with pytest.raises(TypeError, match=r"is_signed\(\) expects an integer dtype, but got qd.f32."):
        types.is_signed(qd.f32)
    with pytest.raises(TypeError, match=r"is_real\(\) expects a dtype such as qd.f32, but got 'x'."):
        types.is_real("x")


def test_lang_ops_and_exception_modules():
    from quadrants.lang.exception import QuadrantsAssertionError
    from quadrants.lang.ops import atomic_add, sqrt

    assert sqrt is qd.sqrt and atomic_add is qd.atomic_add and QuadrantsAssertionError is qd.QuadrantsAssertionError
    with pytest.raises(AttributeError, match="has no attribute 'np'"):
        qd.lang.ops.np
    assert isinstance(qd.lang._template_mapper.__builtins__, dict)  # Genesis writes __debug__ into it


# --- qd.lang.impl -------------------------------------------------------------------------------------
def test_current_cfg_and_runtime_defaults():
    qd.init(arch=qd.cpu, default_fp=qd.f64, debug=True)
    runtime = impl.get_runtime()
    assert impl.current_cfg().debug is True and impl.current_cfg().arch is qd.cfg.arch
    assert (runtime.default_fp, runtime.default_ip, runtime.default_up) == (qd.f64, qd.i32, qd.u32)


@pytest.mark.cpu_only
def test_device_queries_on_the_cpu():
    assert impl.get_max_shared_memory_bytes(is_lowerbound_ok=True) == 0
    with pytest.raises(RuntimeError, match="needs qd.init\\(arch=qd.cuda\\)"):
        impl.get_cuda_compute_capability()


def test_hooks_wrapped_around_materialize_and_clear_run(monkeypatch):
    # Genesis defers filling fields to the next materialize() and drops what is pending on clear().
    pending, cleared = [], []
    materialize, clear = impl.PyQuadrants.materialize, impl.PyQuadrants.clear

    def materialize_then_fill(self):
        materialize(self)
        fills = pending.copy()
        pending.clear()
        for tensor, value in fills:
            tensor.fill(value)
        if fills:
            self.prog.synchronize()

    def clear_then_drop(self):
        clear(self)
        cleared.append(len(pending))
        pending.clear()

    monkeypatch.setattr(impl.PyQuadrants, "materialize", materialize_then_fill)
    monkeypatch.setattr(impl.PyQuadrants, "clear", clear_then_drop)
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f32, shape=2)
    pending.append((x, 2.5))

    @qd.kernel
    def copy_out(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(2):
            out[i] = x[i]

    out = np.zeros(2, np.float32)
    copy_out(out)  # compiles, so the deferred fill has run first
    assert out.tolist() == [2.5, 2.5] and impl.get_runtime().materialized
    pending.append((x, 0.0))
    qd.reset()
    assert cleared[-1] == 1 and not pending and not impl.get_runtime().materialized


def test_dtypes_and_archs_stay_singletons_through_copy_and_pickle():
    import copy
    import pickle

    for value in (qd.f32, qd.u1, qd.cpu, qd.cuda, qd.vulkan):
        assert copy.deepcopy(value) is value and pickle.loads(pickle.dumps(value)) is value
    config = copy.deepcopy(qd.cfg)  # upstream's qd.init() deep-copies what it is given, qd.cfg values included
    assert config.arch is qd.cfg.arch and config.default_fp is qd.f32
