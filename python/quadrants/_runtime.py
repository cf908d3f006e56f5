# python/quadrants/_runtime.py: qd.init / qd.reset, the architectures and the current configuration.
import os
import warnings
import weakref

from . import _dtypes


class Arch:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"qd.{self.name}"


# QD_CHECK_CUDA=1: every kernel compiled for the CPU is also compiled for sm_90 with NVRTC, so a machine
# without a GPU still catches CUDA code generation bugs (the test command sets it).
CHECK_CUDA_CODEGEN = os.environ.get("QD_CHECK_CUDA") == "1"

cpu = Arch("cpu")
cuda = Arch("cuda")
gpu = Arch("gpu")  # resolved by init(): cuda when a device exists, else cpu with a warning


class Config:
    """What qd.init() was given; kernels compiled afterwards use it."""

    def __init__(self, arch, default_fp, default_ip, debug, fast_math, cpu_max_num_threads, device_id,
                 cuda_properties=None):
        self.arch = arch
        self.default_fp = default_fp
        self.default_ip = default_ip
        self.debug = debug
        self.fast_math = fast_math
        self.cpu_max_num_threads = cpu_max_num_threads
        self.device_id = device_id
        self.cuda_properties = cuda_properties  # sm_count, compute_capability, memory_pools

    @property
    def is_cuda(self):
        return self.arch is cuda


_config = None
_generation = 0
_live_arrays = weakref.WeakSet()  # containers to release on reset()


def _cuda_device_count():
    """Number of CUDA devices the driver reports, 0 when CUDA is unusable."""
    from . import _core

    return _core.cuda_device_count() if _core.cuda_status() == "" else 0


def _resolve_arch(arch):
    if arch is None or arch is cpu:
        return cpu
    if arch is gpu:
        if _cuda_device_count() > 0:
            return cuda
        warnings.warn("qd.gpu: no CUDA device found, falling back to qd.cpu.", RuntimeWarning, stacklevel=3)
        return cpu
    if arch is cuda:
        from . import _core

        status = _core.cuda_status()
        if status:
            raise RuntimeError(
                f"qd.init(arch=qd.cuda): CUDA is not usable here: {status}. Use qd.cpu, or qd.gpu to fall back "
                "to the CPU automatically."
            )
        return cuda
    raise ValueError(f"qd.init(arch=...) expects qd.cpu, qd.cuda or qd.gpu, but got {arch!r}.")


def init(
    arch=None,
    default_fp=_dtypes.f32,
    default_ip=_dtypes.i32,
    debug=False,
    fast_math=False,
    cpu_max_num_threads=None,
    device_id=0,
    **kwargs,
):
    """Initializes quadrants; a second call resets everything first, as in Quadrants."""
    unknown = set(kwargs) - {"offline_cache", "log_level", "random_seed", "kernel_profiler", "print_ir"}
    if unknown:
        raise TypeError(f"qd.init() got unexpected keyword argument(s): {', '.join(sorted(unknown))}.")
    if cpu_max_num_threads is None:
        env = os.environ.get("QD_NUM_THREADS")
        cpu_max_num_threads = int(env) if env else 0
    if cpu_max_num_threads < 0:
        raise ValueError(f"qd.init(cpu_max_num_threads=...) must be positive, but got {cpu_max_num_threads}.")
    resolved = _resolve_arch(arch)
    reset()
    from . import _core

    _core.set_num_threads(cpu_max_num_threads)
    cuda_properties = _core.cuda_init(device_id) if resolved is cuda else None
    _core.set_target("cuda" if resolved is cuda else "cpu", device_id)
    global _config
    _config = Config(
        resolved,
        _dtypes.to_dtype(default_fp),
        _dtypes.to_dtype(default_ip),
        bool(debug),
        bool(fast_math),
        cpu_max_num_threads,
        device_id,
        cuda_properties,
    )


def reset():
    """Frees every field and ndarray; using one afterwards raises a RuntimeError."""
    global _config, _generation
    for array in list(_live_arrays):
        array._release()
    _live_arrays.clear()
    _config = None
    _generation += 1


def sync():
    """Waits until every kernel launched so far has finished (CPU kernels are already synchronous)."""
    if _config is not None and _config.is_cuda:
        from . import _core

        _core.cuda_synchronize_device(_config.device_id)


def config():
    """The current configuration; initializes with defaults (qd.cpu) on first use."""
    if _config is None:
        init()
    return _config


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
    _live_arrays.add(container)
