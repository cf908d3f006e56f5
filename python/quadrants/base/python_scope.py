# python/quadrants/base/python_scope.py: which operations belong to Python scope and which to kernels, while a
# kernel's translation runs plain Python functions at compile time.
#
# Upstream runs a plain Python function called from a kernel as it traces the kernel: kernel built-ins inside it
# build IR, and a field or ndarray element read in it fails ("cannot be called in Quadrants-scope"). The frontend
# here calls such a function at compile time when its arguments are compile-time values, and translates it as
# kernel code (like a @qd.func) instead when it raises KernelScopeError: a kernel built-in or @qd.func called from
# it, or a container element read or written in it. Without the second, an element read would return the value
# the container held when the kernel compiled, baked into the kernel as a constant.
import contextlib
import threading


class _State(threading.local):
    calls = 0  # > 0 while this thread's kernel translation runs a plain Python function


_state = _State()  # per thread: another thread may read fields while this one compiles


class KernelScopeError(RuntimeError):
    """An operation used in the wrong scope: a kernel-only built-in or a @qd.func called from Python, or a field or
    ndarray element accessed by Python code that a kernel runs at compile time."""


@contextlib.contextmanager
def compile_time_call():
    """Marks a plain Python function that a kernel's translation calls at compile time."""
    _state.calls += 1
    try:
        yield
    finally:
        _state.calls -= 1


def compile_time_calls():
    """How many plain Python functions a kernel's translation is running now (0 in Python scope)."""
    return _state.calls


def refuse_element_access(kind):
    """The KernelScopeError for a field or ndarray (`kind`) element accessed by Python code a translation runs."""
    raise KernelScopeError(f"A qd.{kind} element is read or written in a Python function that a kernel calls while "
                           "it compiles, which would use the value of that moment; kernel code reads it when the "
                           "kernel runs.")
