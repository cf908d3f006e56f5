# python/quadrants/runtime/init.py: qd.init / qd.reset, the architectures and the current configuration.
import functools
import os
import platform
import warnings
import weakref

from quadrants.base import dtypes as _dtypes, log as _logging, registry
from quadrants.runtime import _core, cache as _cache, ir_load_envs as _ir_load_envs, kernel_store as _kernel_store
from quadrants.runtime import option_writes as _option_writes, options as _init_options


class Arch:
    """A backend name for qd.init(arch=...). cpu, cuda and gpu compile kernels; python runs them as Python on
    torch tensors (interop/python_backend.py); the others are upstream's names for backends quadrants does not
    have, and fall back to the CPU like qd.gpu does."""

    __slots__ = ("name",)
    by_name = {}  # every Arch, by its name (QD_ARCH=<name> picks one)

    def __init__(self, name):
        self.name = name
        Arch.by_name[name] = self

    def __repr__(self):
        return "qd.cpu" if self is cpu else f"qd.{self.name}"

    # Archs are compared by identity, so copies and unpickled ones are the same object.
    def __reduce__(self):
        return _arch_named, (self.name,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _arch_named(name):
    return Arch.by_name[name]


# QD_CHECK_CUDA=1: every kernel compiled for the CPU is also compiled for sm_90 with NVRTC, so a machine
# without a GPU still catches CUDA code generation bugs (the test command sets it).
CHECK_CUDA_CODEGEN = os.environ.get("QD_CHECK_CUDA") == "1"

cpu = Arch("cpu")
cuda = Arch("cuda")
gpu = Arch("gpu")  # resolved by init(): cuda when a device exists, else cpu with a warning
# Upstream's pure-Python backend: fields and ndarrays are torch tensors and kernels run as plain Python
# (interop/python_backend.py); nothing is compiled. It needs torch.
python = Arch("python")

# Upstream names the CPU backend by the host's instruction set; that name is qd.cpu itself.
HOST_CPU_NAME = "arm64" if platform.machine().lower() in ("arm64", "aarch64") else "x64"
Arch.by_name[HOST_CPU_NAME] = cpu
cpu.name = HOST_CPU_NAME  # upstream's qd.cpu.name; its tests' ids read it (test_x[arch=x64])
if HOST_CPU_NAME == "x64":
    Arch.by_name["x86_64"] = cpu

# What upstream Quadrants calls the same version of its API, for qd.init(require_version=...).
COMPATIBLE_VERSION = (1, 3, 3)


class Config:
    """What qd.init() was given, as kernels compiled afterwards use it.

    `debug` (qd.init(debug=True)) means kernels are compiled with every run-time check: bounds, asserts,
    integer overflow, and Tape(validation=True)'s. `check_out_of_bound` means bounds checks: set by
    check_out_of_bound=True alone, or implied by debug, as upstream. `options` is qd.cfg.
    """

    def __init__(self, arch, default_fp, default_ip, debug, fast_math, cpu_max_num_threads, device_id,
                 cuda_properties=None, random_seed=0, options=None, check_out_of_bound=None):
        self.arch = arch
        self.default_fp = default_fp
        self.default_ip = default_ip
        self.debug = debug
        self.check_out_of_bound = debug if check_out_of_bound is None else (debug or check_out_of_bound)
        self.fast_math = fast_math
        self.cpu_max_num_threads = cpu_max_num_threads
        self.device_id = device_id
        self.cuda_properties = cuda_properties  # sm_count, compute_capability, memory_pools
        self.random_seed = random_seed  # the seed of qd.random's generator
        self.options = options
        self.compiled_functions = 0  # kernel specializations compiled (or loaded from the disk cache) since init

    @property
    def is_cuda(self):
        return self.arch is cuda


_config = None
_generation = 0
_live_arrays = weakref.WeakSet()  # containers to release on reset()
_compiled_kernels = weakref.WeakSet()  # kernels holding compiled code (also in _live_arrays)
_materialize_pending = False  # something was tracked since the last PyQuadrants.materialize()


def _cuda_device_count():
    """Number of CUDA devices the driver reports, 0 when CUDA is unusable."""
    return _core.cuda_device_count() if _core.cuda_status() == "" else 0


def _is_available(arch):
    if arch is cpu or arch is python:
        return True
    if arch is gpu:
        return _cuda_device_count() > 0
    if arch is cuda:
        return _core.cuda_status() == ""
    return False


def _resolve_arch(arch, enable_fallback=True):
    """The Arch to run on: a list picks its first available entry; what is unavailable falls back to
    the CPU with a warning, as upstream (qd.init(arch=qd.cuda) on a machine without CUDA runs on the
    CPU), or, under enable_fallback=False, raises an error that says why."""
    if isinstance(arch, (list, tuple)):
        found = next((a for a in arch if _is_available(a)), None)
        if found is None:
            warnings.warn(f"qd.init(arch={list(arch)}): none of these is available here, falling back to qd.cpu.",
                          RuntimeWarning, stacklevel=3)
            return cpu
        arch = found
    if arch is None or arch is cpu:
        return cpu
    if arch is python:
        _require_torch_for_python_arch()
        return python
    if arch is gpu:
        if _cuda_device_count() > 0:
            return cuda
        warnings.warn("qd.gpu: no CUDA device found, falling back to qd.cpu.", RuntimeWarning, stacklevel=3)
        return cpu
    if arch is cuda:
        status = _core.cuda_status()
        if status and enable_fallback:
            warnings.warn(f"qd.init(arch=qd.cuda): CUDA is not usable here ({status}), falling back to qd.cpu; "
                          "pass enable_fallback=False to make this an error.", RuntimeWarning, stacklevel=3)
            return cpu
        if status:
            raise RuntimeError(f"qd.init(arch=qd.cuda, enable_fallback=False): CUDA is not usable here: {status}. "
                               "Use qd.cpu, or leave enable_fallback on to fall back to the CPU.")
        return cuda
    if isinstance(arch, Arch):
        warnings.warn(f"qd.{arch.name}: quadrants has no {arch.name} backend, falling back to qd.cpu.",
                      RuntimeWarning, stacklevel=3)
        return cpu
    raise ValueError(
        f"qd.init(arch=...) expects qd.cpu, qd.cuda, qd.gpu or qd.python, but got {arch!r}; upstream's other names "
        f"({', '.join('qd.' + n for n in sorted(Arch.by_name) if n not in ('cpu', 'cuda', 'gpu', 'python'))}) run "
        "on the CPU."
    )


def _require_torch_for_python_arch():
    try:
        import torch  # noqa: F401  (optional: only the python backend needs it)
    except ImportError as exc:
        raise ImportError("qd.init(arch=qd.python) needs torch: the python backend keeps fields and ndarrays in "
                          "torch tensors. Install torch (pip install torch), or use qd.cpu.") from exc


def is_python_arch():
    """Whether qd.init(arch=qd.python) is in force: containers are torch tensors and kernels run as Python."""
    return _config is not None and _config.arch is python


registry.provide("is_python_arch", is_python_arch)  # qd.f32(x) converts in Python scope there (base/dtypes.py)


def _requested_arch(arch, enable_fallback):
    """The arch argument, or QD_ARCH, which overrides it as upstream; without fallback, unavailable is an error."""
    name = os.environ.get("QD_ARCH")
    if name:
        if name not in Arch.by_name:
            names = ", ".join(sorted(Arch.by_name))
            raise ValueError(f"QD_ARCH={name!r} names no architecture; expected one of {names}.")
        arch = Arch.by_name[name]
    # qd.cuda is left to _resolve_arch, whose error says why CUDA is unusable.
    if not enable_fallback and isinstance(arch, (Arch, list, tuple)) and arch not in (cuda, python):
        if not any(_is_available(a) for a in (arch if isinstance(arch, (list, tuple)) else [arch])):
            raise RuntimeError(f"qd.init(arch={arch!r}, enable_fallback=False): {arch!r} is not available here; "
                               "quadrants runs on qd.cpu, and on qd.cuda where a CUDA device exists.")
    return arch


def _check_version(required):
    """qd.init(require_version='1.3.0'): upstream's rule, against the upstream version we are compatible with."""
    digits = ""
    for c in str(required):
        if not (c.isdigit() or c == "."):
            break
        digits += c
    parts = [int(p) for p in digits.split(".") if p]
    if len(parts) < 2:
        raise ValueError(f"qd.init(require_version=...) expects 'major.minor[.patch]', but got {required!r}.")
    major, minor, patch = (parts + [0])[:3]
    have = COMPATIBLE_VERSION
    if major != have[0] or (minor, patch) > have[1:]:
        raise RuntimeError(f"qd.init(require_version={required!r}): quadrants provides the API of Quadrants "
                           f"{'.'.join(map(str, have))}, which does not satisfy it.")


def _default_type(given, variable, choices, what):
    """default_fp/default_ip: the argument, else QD_DEFAULT_FP/IP=32|64, else the 32-bit type."""
    if given is None:
        text = os.environ.get(variable, "")
        if text and text not in ("32", "64"):
            raise ValueError(f"Environment variable {variable}={text!r} must be 32 or 64.")
        given = choices[1] if text == "64" else choices[0]
    allowed = choices if what == "default_ip" else (_dtypes.f16,) + choices
    try:
        dtype = _dtypes.to_dtype(given)
    except TypeError:
        dtype = None
    if dtype not in allowed:
        raise ValueError(f"qd.init({what}=...) expects one of {', '.join(map(repr, allowed))}, but got {given!r}.")
    return dtype


def init(arch=None, default_fp=None, default_ip=None, _test_mode=False, enable_fallback=True, require_version=None,
         print_non_pure=False, src_ll_cache=True, **kwargs):
    """Initializes quadrants; a second call resets everything first, as in Quadrants.

    Takes every option upstream's qd.init() takes (see runtime/options.py for what each does here).
    """
    device_id = kwargs.pop("device_id", 0)
    if not isinstance(device_id, int) or device_id < 0:
        raise ValueError(f"qd.init(device_id=...) expects a non-negative int, but got {device_id!r}.")
    kwargs.update(_test_mode=_test_mode, print_non_pure=print_non_pure, src_ll_cache=src_ll_cache)
    values = _init_options.resolve(kwargs)
    if require_version is not None:
        _check_version(require_version)
    fp = _default_type(default_fp, "QD_DEFAULT_FP", (_dtypes.f32, _dtypes.f64), "default_fp")
    ip = _default_type(default_ip, "QD_DEFAULT_IP", (_dtypes.i32, _dtypes.i64), "default_ip")
    threads = values["cpu_max_num_threads"]
    if threads is None:
        env = os.environ.get("QD_NUM_THREADS")
        threads = int(env) if env else 0
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError(f"qd.init(cpu_max_num_threads=...) must be positive, but got {threads!r}.")
    stack_size = values["ad_stack_size"]
    if not isinstance(stack_size, int) or isinstance(stack_size, bool) or not 0 <= stack_size <= 1 << 24:
        raise ValueError(
            f"qd.init(ad_stack_size=...) expects an int from 0 (the default capacity, 1024) to {1 << 24}: the "
            f"values each AD stack of reverse-mode autodiff holds, but got {stack_size!r}."
        )
    gpu_stack = values["cuda_stack_limit"]
    if gpu_stack < 0:  # resolve() checked that it is an int
        raise ValueError(f"qd.init(cuda_stack_limit=...) expects the bytes of stack per CUDA thread as an int (0: "
                         f"the driver's default), but got {gpu_stack!r}.")
    dump_path = _option_writes.dump_path_text(values["debug_dump_path"], "qd.init(debug_dump_path=...)")
    if "log_level" in kwargs or os.environ.get("QD_LOG_LEVEL"):
        _logging.set_logging_level(values["log_level"])
    resolved = _resolve_arch(_requested_arch(arch, enable_fallback), enable_fallback)
    _ir_load_envs.check(resolved, bool(values["offline_cache"]), bool(src_ll_cache))
    reset()

    _core.set_print_ir(bool(values["print_ir"]))
    _core.set_ir_dump_path(dump_path)
    _core.set_num_threads(threads)
    _core.set_disk_cache_enabled(bool(values["offline_cache"]))
    _cache.apply_cache_path(values["offline_cache_file_path"])
    in_force = _cache.apply_init_options(values, kwargs)
    _cache.open_records(values, in_force)
    values.update(in_force)  # qd.cfg shows the cap in force, not upstream's default
    _core.set_kernel_profiling(bool(values["kernel_profiler"]))
    _core.clear_kernel_times()
    cuda_properties = _core.cuda_init(device_id) if resolved is cuda else None
    if resolved is cuda:
        _option_writes.apply_cuda_stack_limit(gpu_stack, device_id)
    _core.set_target("cuda" if resolved is cuda else "cpu", device_id)
    debug = values["debug"]
    values.update(
        arch=resolved, default_fp=fp, default_ip=ip, default_up=_dtypes.u64 if ip is _dtypes.i64 else _dtypes.u32,
        check_out_of_bound=debug or values["check_out_of_bound"], offline_cache=bool(values["offline_cache"]),
        print_ir=bool(values["print_ir"]), kernel_profiler=bool(values["kernel_profiler"]),
        cpu_max_num_threads=threads or _core.num_threads(),
    )
    global _config
    _config = Config(resolved, fp, ip, debug, values["fast_math"], threads, device_id, cuda_properties,
                     values["random_seed"], None, values["check_out_of_bound"])
    # qd.cfg: writes after init take effect on this Config (option_writes.py)
    _config.options = _init_options.CompileConfig(values, functools.partial(_option_writes.apply, _config))
    _logging.info(f"Starting on arch={resolved.name}")
    for hook in registry.init_hooks():  # e.g. kernels switching between launching and running as Python
        hook(_config)
    if _test_mode:  # upstream's test mode hands back the settings that live outside qd.cfg
        return _init_options.SubmoduleOptions(values)
    return None


def reset():
    """Frees every field and ndarray; using one afterwards raises a RuntimeError."""
    global _config, _generation, _materialize_pending
    _kernel_store.close_session()  # upstream writes its cache when the program ends
    for hook in registry.reset_hooks():  # the runtime object's clear() (program.py), the field checks (data/)
        hook()
    for array in list(_live_arrays):
        array._release()
    _live_arrays.clear()
    _compiled_kernels.clear()
    _config = None
    _materialize_pending = False
    _generation += 1


def sync():
    """Waits until every kernel launched so far has finished (CPU kernels are already synchronous); fields placed
    afterwards go to a new SNode tree, as upstream (data/snode.py)."""
    if _config is not None:
        registry.get("close_root_tree")()
    if _config is not None and _config.is_cuda:
        _core.cuda_synchronize_device(_config.device_id)


def config():
    """The current configuration; initializes with defaults (qd.cpu) on first use.

    Kernels read it when they compile and containers when they are created; if a container or kernel
    was tracked since, PyQuadrants.materialize() runs first: upstream runs it before compiling, and
    applications (Genesis) hook work onto it.
    """
    if _config is None:
        init()
    if _materialize_pending:
        _materialize()
    return _config


def dump_compile_config():
    """Prints every option of the current configuration (qd.cfg), `name=value` one a line in name order, as
    upstream's qd.dump_compile_config() does: what the disk cache's keys depend on."""
    options = config().options
    print("\n".join(f"{name}={getattr(options, name)}" for name in dir(options) if not name.startswith("_")))


def _materialize():
    global _materialize_pending
    _materialize_pending = False  # first: the hook may create containers and compile kernels itself
    registry.get("materialize")()  # the runtime object's materialize() (program.py), which programs wrap


def generation():
    """Bumped on every init/reset, so compiled kernels can tell their configuration is stale."""
    return _generation


def cook_dtype(dtype):
    """A DataType, where Python's float and int mean the current default_fp and default_ip."""
    if dtype is float:
        return config().default_fp
    if dtype is int:
        return config().default_ip
    return _dtypes.to_dtype(dtype)


def track(container):
    """Registers a container or kernel to release on reset(); it will be materialized before the next compile."""
    global _materialize_pending
    _live_arrays.add(container)
    _materialize_pending = True


def track_kernel(kernel):
    """track() for a kernel, which drop_compiled_kernels() can also release."""
    track(kernel)
    _compiled_kernels.add(kernel)


def drop_compiled_kernels():
    """Releases every kernel's compiled code, freeing no container: SNodeTree.destroy() calls it because a compiled
    kernel holds the storage of the fields it read, and upstream clears all compiled kernels there too, so the next
    call compiles against the fields its arguments (a data_oriented self's members) name now."""
    for kernel in list(_compiled_kernels):
        kernel._release()
    _compiled_kernels.clear()
