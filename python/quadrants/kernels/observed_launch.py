# python/quadrants/kernels/observed_launch.py: a kernel call taken as upstream's three per-call steps, for programs
# that replace one of them (quadrants.lang.kernel_impl.Kernel.ensure_compiled / materialize / launch_kernel).
#
# Upstream runs every launch through Python methods of its Kernel class: ensure_compiled (which specialization),
# materialize (build it, or load it from the fast cache), launch_kernel (run it with the compiled kernel found
# before the launch, or None when the launch compiles). Ours has no Python per launch (kernel.py), so these steps
# exist only while a program has replaced one of them (lang/kernel_impl.py calls observe()); then, and only then,
# every kernel call runs them, through the same machinery as an unobserved call:
#   materialize  makes the call's dispatch entry (Kernel._miss, which translates and records a Python-dispatched
#                kernel's specialization) and, for a specialization its launcher has not compiled, compiles it
#                ahead of the launch through the launcher's own compile_fn (CompileFn keeps the result for the
#                launch, which then compiles nothing)
#   compiled_kernel_data  the CompiledKernelData found ready: compiled earlier since qd.init(), or compiled ahead
#                from a translation the translation cache held (from disk, as upstream's fast cache would load it;
#                its compiled code comes from the disk cache when that has it); None when it was translated anew
#   launch_kernel  runs the entry (or the C++-dispatched kernel's launcher) with the call's arguments
# Fast kernels are observed by setting FastKernel.__call__ (removed again afterwards, so their calls go straight
# to C++ as before); Python-dispatched kernels by replacing their generated function's lookup. While a qd.ad.Tape
# records, fast kernels take the Tape's path instead, and the steps do not see their calls.
import weakref

from quadrants.kernels.call_args import binder_of
from quadrants.runtime import _core

_steps = None  # the object whose ensure_compiled / materialize / launch_kernel each call runs, or None
_python_kernels = weakref.WeakSet()  # every Python-dispatched Kernel (kernel.py registers them when made)


class CompileFn:
    """A launcher's compile_fn that can be run ahead of the launch: what `ahead` compiled for a spec is handed to the
    launcher when its launch asks for that spec, instead of compiling it again."""

    __slots__ = ("fn", "ready", "__weakref__")

    def __init__(self, fn):
        self.fn = fn
        self.ready = {}

    def __call__(self, spec, args):
        compiled = self.ready.pop(spec, None)
        return compiled if compiled is not None else self.fn(spec, args)

    def ahead(self, spec, args):
        """Compiles `spec` now (the launcher's fields are handed to it as for a launch); the launch takes it."""
        self.ready[spec] = self.fn(spec, args)


class PreparedLaunch:
    """Upstream's t_kernel: what runs the call, prepared by materialize; called with the call's arguments."""

    __slots__ = ("run",)

    def __init__(self, run):
        self.run = run

    def __call__(self, *args, qd_stream=None):
        return self.run(args, qd_stream)


def observing():
    return _steps is not None


def register(kernel):
    """A Python-dispatched kernel was made: observed from now on if the steps are."""
    _python_kernels.add(kernel)
    if _steps is not None:
        _install(kernel)


def observe(steps, fast_kernel_class):
    """Runs every kernel call through steps.ensure_compiled / materialize / launch_kernel (steps=None: stops)."""
    global _steps
    was, _steps = _steps, steps
    if (was is None) == (steps is None):
        return
    if fast_kernel_class is not None:
        if steps is not None:
            fast_kernel_class.__call__ = _observed_fast_call
        elif fast_kernel_class.__dict__.get("__call__") is _observed_fast_call:
            del fast_kernel_class.__call__  # back to the C++ launcher's own call slot
    for kernel in list(_python_kernels):
        _install(kernel) if steps is not None else _uninstall(kernel)


def fast_class_made(fast_kernel_class):
    """kernel.py made the class of C++-dispatched kernels (on the first such kernel): observed if the steps are."""
    if _steps is not None:
        fast_kernel_class.__call__ = _observed_fast_call


def _install(kernel):
    kernel.function.__globals__["_qd_lookup"] = lambda key, kernel=kernel: _ObservedEntry(kernel)


def _uninstall(kernel):
    kernel.function.__globals__["_qd_lookup"] = kernel._instances.get


class _ObservedEntry:
    """What an observed Python-dispatched kernel's generated function finds for every call: runs the steps."""

    __slots__ = ("kernel",)

    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, *args):
        return run(self.kernel, args)


def _observed_fast_call(self, *args, **kwargs):
    stream = kwargs.pop("qd_stream", None)
    if kwargs:
        args = binder_of(self).bind(args, kwargs)
    return run(self, args, stream)


def run(kernel, args, qd_stream=None):
    """One call as upstream's steps: the key, the launch prepared by materialize, then launch_kernel."""
    steps = _steps
    key = steps.ensure_compiled(kernel, *args)
    prepared = kernel.__dict__.get("_qd_prepared", {}).pop(key, None)
    if prepared is None:  # a replaced materialize that did not prepare the call
        prepared = prepare(kernel, key, args)
        kernel._qd_prepared.pop(key, None)
    t_kernel, compiled = prepared
    return steps.launch_kernel(kernel, key, t_kernel, compiled, *args, qd_stream=qd_stream)


def prepare(kernel, key, args):
    """materialize's work: the call's entry made and its specialization compiled; returns (t_kernel, the
    CompiledKernelData found ready or None) and keeps it for the launch under `key`."""
    definition = kernel.definition
    definition.translation_found = False  # set by the translation this call makes, if it makes one
    instances = getattr(kernel, "_instances", None)
    if instances is None:  # dispatched in C++: the launcher is the kernel
        launcher, compile_fn, flat, compiled_key = kernel, kernel._qd_compile, args, None

        def launch(call_args, stream):
            extra = {"qd_stream": stream} if stream is not None else {}
            return _core.Launcher.__call__(kernel, *call_args, **extra)
    else:
        template_key = kernel._key_of(*args)
        if instances.get(template_key) is None:
            kernel._miss(template_key, args)
        record = kernel._entry_records[template_key]
        launcher, compile_fn = record.launcher, record.compile_fn
        flat = record.launcher_args(args)
        compiled_key = template_key if record.flat_maker is not None else None

        def launch(call_args, stream):
            return instances[template_key](*call_args)
    spec = launcher.spec_of(*flat)
    by_key = spec if compiled_key is None else (compiled_key, spec)
    found = definition.compiled_by_key.get(by_key)
    if found is None:
        compile_fn.ahead(spec, flat)
        if definition.translation_found:
            found = definition.compiled_by_key.get(by_key)
    prepared = (PreparedLaunch(launch), found)
    kernel.__dict__.setdefault("_qd_prepared", {})[key] = prepared
    return prepared


__all__ = ["CompileFn", "PreparedLaunch", "fast_class_made", "observe", "observing", "prepare", "register", "run"]
