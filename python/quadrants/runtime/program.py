# python/quadrants/runtime/program.py: the runtime object upstream programs reach through quadrants.lang.impl.
#
# Genesis and upstream's tests use: get_runtime() (its default dtypes, materialize/clear, prog.synchronize),
# current_cfg(), get_max_shared_memory_bytes() and get_cuda_compute_capability(). The rest of upstream's
# impl is the internals of its own frontend and has no counterpart here.
import weakref

from quadrants.base import dtypes as _dtypes, registry
from quadrants.runtime import _core, init as _runtime
from quadrants.runtime.device_caps import current_device_caps


class _Program:
    """What `get_runtime().prog` offers: the configuration and a device synchronization."""

    def config(self):
        return current_cfg()

    def synchronize(self):
        _runtime.sync()

    def get_device_caps(self):
        """The device's capabilities that change generated code (DeviceCapabilityConfig)."""
        return current_device_caps()

    def get_num_offloaded_tasks_on_last_call(self):
        """The tasks of the kernel launched last: its top-level parallel loops and the runs of top-level
        statements between them (on CUDA, one GPU kernel launch each)."""
        return _core.last_launch_tasks()

    # graph=True kernels on CUDA replay a CUDA graph of their tasks, kept per kernel and device
    # (src/runtime/cuda/graph.h); on the CPU they launch as any kernel, and these stay 0 and False, as upstream's.
    def get_graph_cache_size(self):
        """The CUDA graphs kept: one per graph=True kernel specialization launched on a device."""
        return _graph_counters()["cache_size"]

    def get_graph_cache_used_on_last_call(self):
        """Whether the last launch replayed a CUDA graph."""
        return _graph_counters()["used_on_last_call"]

    def get_graph_num_nodes_on_last_call(self):
        """The nodes of the graph the last launch replayed (its tasks, and for each qd.graph.do_while a
        conditional node, its condition kernel and, nested, the kernel that re-arms it); 0 without a graph."""
        return _graph_counters()["nodes_on_last_call"]

    def get_graph_total_builds(self):
        """CUDA graphs built since qd.init(): a kernel's graph is built once, whatever arrays later launches pass."""
        return _graph_counters()["total_builds"]

    # Upstream sizes a launch's AD stacks from the loop trip counts it reads, on GPUs through a parallel "max
    # reducer" kernel it counts. quadrants' AD stacks have a fixed capacity (qd.init(ad_stack_size=N)), so no
    # such kernel is ever dispatched and the count is always 0, as upstream's is on the CPU.
    def _get_max_reducer_dispatch_count(self):
        return 0

    def _reset_max_reducer_dispatch_count(self):
        pass

    def _get_num_ndarrays(self):
        """How many qd.ndarray()s are alive (qd.reset() releases them all)."""
        return sum(getattr(c, "_kind", None) == "ndarray" for c in list(_runtime._live_arrays))


_NO_GRAPHS = {"cache_size": 0, "used_on_last_call": False, "nodes_on_last_call": 0, "total_builds": 0}


def _graph_counters():
    """The CUDA graph counters; none on the CPU."""
    if not _runtime.config().is_cuda:
        return _NO_GRAPHS
    return _core.cuda_graph_counters()


class PyQuadrants:
    """The runtime object upstream keeps per qd.init(); here one instance for the process.

    materialize() runs before a kernel compiles and before a container is created, when containers or
    kernels appeared since the last run (see _runtime.config()); clear() runs on qd.reset(). Both do no
    work of their own, since quadrants allocates each container when it is created; they exist so that
    applications can wrap them (`impl.PyQuadrants.materialize = wrapper`), as Genesis does.
    """

    def __init__(self):
        self.materialized = False
        self.prog = _Program()

    def materialize(self):
        self.materialized = True

    def clear(self):
        self.materialized = False

    def sync(self):
        self.materialize()
        _runtime.sync()

    @property
    def ndarrays(self):
        """The qd.ndarray()s alive under the current qd.init(), as upstream's weak set (qd.reset() frees them all)."""
        return weakref.WeakSet(c for c in list(_runtime._live_arrays) if getattr(c, "_kind", None) == "ndarray")

    def materialize_root_fb(self, is_first_call):
        """Upstream finalizes qd.root's tree here: fields placed afterwards go to a new tree, as after qd.sync()
        (a tree with no nodes yet stays open, as upstream's unless `is_first_call`, where nothing tells them apart)."""
        self.materialize()
        registry.get("close_root_tree")()

    @property
    def compiling_callable(self):
        """Upstream's kernel or function being compiled, which Python helpers called from kernels ask for its
        ast_builder() to pass to impl.subscript(); here impl.subscript needs no builder, so this is a stand-in
        whose ast_builder() gives a placeholder, inside kernels and out."""
        return _COMPILING_CALLABLE

    def get_num_compiled_functions(self):
        """How many kernel specializations were compiled since qd.init() (one per kernel and argument
        signature; a disk cache hit counts, as upstream counts a kernel loaded from its offline cache)."""
        return _runtime.config().compiled_functions

    # default_fp/default_ip can be reassigned after qd.init(), as upstream allows: kernels compiled
    # afterwards read them (those compiled before keep theirs).
    @property
    def default_fp(self):
        return _runtime.config().default_fp

    @default_fp.setter
    def default_fp(self, dtype):
        _set_default_type("default_fp", dtype, _dtypes.is_real)

    @property
    def default_ip(self):
        return _runtime.config().default_ip

    @default_ip.setter
    def default_ip(self, dtype):
        _set_default_type("default_ip", dtype, _dtypes.is_integral)

    @property
    def default_up(self):
        return current_cfg().default_up

    def set_default_fp(self, fp):
        """Upstream's setter: the default float type for kernels compiled from now on; f16, f32 or f64 only."""
        _set_default_type("default_fp", fp, lambda dtype: dtype in (_dtypes.f16, _dtypes.f32, _dtypes.f64),
                          "qd.f16, qd.f32 or qd.f64", "set_default_fp(...)")

    def set_default_ip(self, ip):
        """Upstream's setter: the default int type (and default_up, its unsigned twin) for kernels compiled from now
        on; i32 or i64 only (the default_ip attribute also takes other integer types, as upstream's)."""
        _set_default_type("default_ip", ip, lambda dtype: dtype in (_dtypes.i32, _dtypes.i64), "qd.i32 or qd.i64",
                          "set_default_ip(...)")


class _CompilingCallable:
    """get_runtime().compiling_callable (see there)."""

    def ast_builder(self):
        return None


_COMPILING_CALLABLE = _CompilingCallable()


def _set_default_type(what, dtype, accepts, expected=None, call=None):
    """get_runtime().default_fp/default_ip = dtype, or set_default_fp/ip(dtype): the current configuration and
    qd.cfg take it."""
    try:
        resolved = _dtypes.to_dtype(dtype)
    except TypeError:
        resolved = None
    if resolved is None or not accepts(resolved):
        kind = expected or ("a floating-point dtype" if what == "default_fp" else "an integer dtype")
        raise ValueError(f"get_runtime().{call or what + ' = ...'} expects {kind}, but got {dtype!r}.")
    setattr(_runtime.config().options, what, resolved)  # as qd.cfg.<what> = ...: the Config and default_up follow


_pyquadrants = PyQuadrants()
# qd.reset() and materialization call through the object, so methods that programs put on the class run.
registry.on_reset(lambda: _pyquadrants.clear())
# qd.reset() drops the CUDA graphs with the program, as upstream's does (their kernels may be compiled again).
registry.on_reset(_core.cuda_graph_cache_clear)
registry.provide("materialize", lambda: _pyquadrants.materialize())


def get_runtime():
    """The process's PyQuadrants."""
    return _pyquadrants


def current_cfg():
    """qd.cfg: the configuration of the current qd.init() (initializing with defaults on first use)."""
    return _runtime.config().options


def reset():
    _runtime.reset()


def get_cuda_compute_capability():
    """The compute capability of the CUDA device in use, as upstream's integer (8.6 -> 86)."""
    config = _runtime.config()
    if not config.is_cuda:
        raise RuntimeError("get_cuda_compute_capability() needs qd.init(arch=qd.cuda); the current arch is "
                           f"{config.arch!r}.")
    major, minor = config.cuda_properties["compute_capability"]
    return major * 10 + minor


# The shared memory every CUDA device since compute capability 2.0 gives a block without opting in.
_CUDA_STATIC_SHARED_MEMORY_BYTES = 48 * 1024


def get_max_shared_memory_bytes(*, is_lowerbound_ok):
    """Shared memory per block: 0 on the CPU; on CUDA, the 48 KiB every device gives a block.

    quadrants does not query the opt-in maximum, so on CUDA only a lower bound is known; without
    is_lowerbound_ok that is a RuntimeError.
    """
    config = _runtime.config()
    if not config.is_cuda:
        return 0
    if is_lowerbound_ok:
        return _CUDA_STATIC_SHARED_MEMORY_BYTES
    raise RuntimeError("get_max_shared_memory_bytes(is_lowerbound_ok=False): quadrants knows only a lower bound "
                       "for CUDA devices (48 KiB); pass is_lowerbound_ok=True to use it.")
