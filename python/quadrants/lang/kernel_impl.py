# python/quadrants/lang/kernel_impl.py: upstream's quadrants.lang.kernel_impl: the decorators (kernel, func, pyfunc,
# real_func, data_oriented), and its Kernel class's per-call steps, which programs and tests replace to watch
# launches.
#
# Upstream's kernel objects are instances of Kernel, and every call runs Kernel.ensure_compiled (which
# specialization, through kernel.mapper), Kernel.materialize (build it, or load it from the fast cache) and
# Kernel.launch_kernel(key, t_kernel, compiled_kernel_data, *args) in Python. Ours run no Python per call. Here Kernel
# holds the three steps over our machinery (kernels/observed_launch.py), and while any of them is replaced on the
# class (monkeypatch.setattr("quadrants.lang.kernel_impl.Kernel.launch_kernel", f)), every kernel call runs them,
# the replaced ones included; when all three are the originals again, calls go straight to the launchers. `self` in
# a step is our kernel object (kernel.func, kernel.mapper, kernel.materialized_kernels and
# kernel.compiled_kernel_data_by_key read as upstream's), not an instance of this class.
from quadrants.frontend.data_oriented import data_oriented
from quadrants.frontend.funcs import RealFunc, func, pyfunc
from quadrants.kernels import kernel as _kernels
from quadrants.kernels import observed_launch
from quadrants.kernels.kernel import kernel
from quadrants.types.enums import AutodiffMode

_STEPS = ("ensure_compiled", "materialize", "launch_kernel")


class _StepsWatcher(type):
    """Kernel's metaclass: replacing or restoring a step turns the observed calls on or off."""

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)
        if name in _STEPS:
            _sync(cls)

    def __delattr__(cls, name):
        super().__delattr__(name)
        if name in _STEPS:
            _sync(cls)


class Kernel(metaclass=_StepsWatcher):
    """Upstream's per-call steps of a kernel, run for every call while one of them is replaced."""

    def ensure_compiled(self, *py_args):
        """The call's key (kernel function, specialization index, autodiff mode), after materialize prepared it."""
        try:
            index, features = self.mapper.lookup(False, py_args)
        except Exception as exc:
            raise type(exc)(f"exception while trying to ensure compiled {self.func}:\n{exc}") from exc
        key = (self.func, index, AutodiffMode.NONE)
        Kernel.materialize(self, key=key, py_args=py_args, arg_features=features)
        return key

    def materialize(self, key, py_args, arg_features=None):
        """Makes the call's entry and compiles its specialization ahead of the launch when it is new."""
        observed_launch.prepare(self, key, py_args)

    def launch_kernel(self, key, t_kernel, compiled_kernel_data, *args, qd_stream=None):
        """Runs the call prepared by materialize (t_kernel); compiled_kernel_data: the compiled kernel found ready
        before the launch, None when it was compiled for this call."""
        return t_kernel(*args, qd_stream=qd_stream)


_ORIGINALS = {name: Kernel.__dict__[name] for name in _STEPS}


def _sync(cls):
    replaced = any(cls.__dict__.get(name) is not original for name, original in _ORIGINALS.items())
    _kernels.observe_calls(cls if replaced else None)


def real_func(fn):
    """@qd.real_func: a function compiled once per signature and called, not inlined."""
    return RealFunc(fn)


__all__ = ["Kernel", "data_oriented", "func", "kernel", "pyfunc", "real_func"]
