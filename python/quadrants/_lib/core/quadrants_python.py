# python/quadrants/_lib/core/quadrants_python.py: the queries programs make of upstream's compiled core module
# (quadrants._lib.core.quadrants_python, also reached as `from quadrants._lib import core`), answered from
# quadrants' own runtime. Our compiled core is quadrants._core; this module holds no logic of its own.
import ctypes
import os

from quadrants.base import dtypes as _dtypes
from quadrants.lang.exception import QuadrantsRuntimeError  # noqa: F401  upstream raises it from the core
from quadrants.runtime import _core, extensions as _extensions, init as _runtime

Arch = _runtime.Arch


def arch_from_name(name):
    """The Arch upstream calls `name` ('x64', 'cuda', 'vulkan', ...)."""
    try:
        return _runtime.Arch.by_name[name]
    except KeyError:
        names = ", ".join(sorted(_runtime.Arch.by_name))
        raise ValueError(f"arch_from_name({name!r}): no architecture has that name; expected one of {names}.") from None


def arch_name(arch):
    """An Arch's name, as in qd.init(arch=...) and QD_ARCH."""
    return arch.name


def host_arch():
    """The host CPU's arch: qd.cpu (which upstream names x64 or arm64)."""
    return _runtime.cpu


def is_extension_supported(arch, ext):
    """Whether `arch` supports qd.extension `ext` here."""
    return _extensions.is_extension_supported(arch, ext)


def with_cuda():
    """Whether a CUDA driver and device are usable (upstream: whether the build has CUDA)."""
    return _runtime._is_available(_runtime.cuda)


def with_amdgpu():
    return False  # no AMD GPU backend


def with_metal():
    return False  # no Metal backend


def with_vulkan():
    return False  # no Vulkan backend


def data_type_size(dtype):
    """The size in bytes of one element of `dtype` (u1 is stored in a byte)."""
    return _dtypes.to_dtype(dtype).numpy.itemsize


def get_version_major():
    """The major version of upstream's API that quadrants provides (qd.init(require_version=...) checks it)."""
    return _runtime.COMPATIBLE_VERSION[0]


def get_version_minor():
    return _runtime.COMPATIBLE_VERSION[1]


def get_version_patch():
    return _runtime.COMPATIBLE_VERSION[2]


_libc = ctypes.CDLL(None)  # the process environment as C code sees it: os.putenv() changes it, os.environ does not
_libc.getenv.restype = ctypes.c_char_p
_libc.getenv.argtypes = [ctypes.c_char_p]


def _process_environment(name):
    value = _libc.getenv(name.encode())
    return None if value is None else os.fsdecode(value)


def get_repo_dir():
    """Upstream's per-user data folder, '$XDG_CACHE_HOME/quadrants/' (else '~/.cache/quadrants/'); the kernel cache
    lives there unless QD_CACHE_DIR or qd.init(offline_cache_file_path=...) moves it."""
    base = _process_environment("XDG_CACHE_HOME")
    if base is None:
        base = os.path.join(_process_environment("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "quadrants") + "/"


def get_max_num_indices():
    """The most indices a field of any element type may have: the core's array dims (element dims included)
    less two, the room a matrix element takes (upstream's constant is 12; ours is a property of the kernel ABI)."""
    return _core.max_ndim - 2


def test_threading():
    """Runs the CPU thread pool's self-check (a fresh pool, loops whose every index must run exactly once), as
    upstream's core does; True when it passes."""
    return _core.check_thread_pool(num_threads=8, rounds=40)
