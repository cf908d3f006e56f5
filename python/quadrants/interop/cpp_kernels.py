# python/quadrants/interop/cpp_kernels.py: qd.cpp_kernel: hand-written C++ called from Python on any array, zero-copy.
import inspect

from quadrants.frontend.funcs import _annotations
from quadrants.kernels.definition import _kernel_params
from quadrants.runtime import _core
from quadrants.types.annotations import scalar_dtype_name


def cpp_kernel(source):
    """Compiles C++ `source` defining a function named like the decorated stub, called like a kernel.

    The stub's annotations give the interface; every array parameter needs an explicit dtype and ndim::

        @qd.cpp_kernel('''
        void scale(qd::Ndarray<float, 1> x, float factor) {
            qd::parallel_for(x.shape(0), [&](int64_t i) { x(i) *= factor; });
        }
        ''')
        def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1), factor: qd.f32) -> None: ...

    Array parameters arrive as qd::Ndarray<T, dims> (element dims count as dims), scalars as T. It takes
    numpy arrays, torch tensors, qd ndarrays and DLPack producers like any kernel, through the same
    C++ launcher. Read-only arrays are refused: C++ code may write any array it is given.
    """

    def wrap(stub):
        return CppKernel(stub, inspect.cleandoc(source) + "\n")

    return wrap


def _launcher_params(stub):
    annotations = _annotations(stub)
    params = _kernel_params(stub, annotations)
    entries = []
    for p in params:
        if p.kind == "template" or (p.kind == "scalar" and p.annotation in (int, float)):
            raise TypeError(f"C++ kernel '{stub.__name__}' parameter '{p.name}': annotate it with a dtype "
                            f"(e.g. qd.f32) or qd.types.ndarray(dtype=..., ndim=...); C++ has no templates here.")
        entry = p.launcher_entry()
        if entry[0] == "array" and (entry[2] is None or entry[3] is None):
            raise TypeError(f"C++ kernel '{stub.__name__}' parameter '{p.name}': C++ code is typed, so give "
                            f"qd.types.ndarray(dtype=..., ndim=...) both a dtype and an ndim.")
        entries.append(entry)
    returns = annotations.get("return")
    return entries, None if returns is None else scalar_dtype_name(returns)


class CppKernel(_core.Launcher):
    """A hand-written C++ function behind the kernel launcher: one compile, any contiguity."""

    def __init__(self, stub, source):
        self.__name__ = stub.__name__
        self.__doc__ = stub.__doc__
        self._params, self._returns = _launcher_params(stub)
        self._source = source
        self._compiled = None
        _core.Launcher.__init__(self, stub.__name__, self._params, self._compile, cpu_only=True)

    def _compile(self, spec, args):
        for param, entry in zip(self._params, spec):
            if entry[0] == "array" and not entry[5]:
                raise ValueError(f"C++ kernel '{self.__name__}' argument '{param[1]}' is read-only, and C++ code "
                                 f"may write any array it is given; pass a writable array (e.g. a copy).")
        if self._compiled is None:  # strided and contiguous calls share the one compiled function
            params = [p if p[0] == "scalar" else p[:3] + (p[3], tuple(p[4])) for p in self._params]
            self._compiled = _core.compile_cpp_kernel(self.__name__, self._source, params, self._returns)
        return self._compiled
