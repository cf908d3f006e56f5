# python/quadrants/kernels/call_args.py: a kernel call's keyword arguments and defaults put in parameter order.
#
# A forward call binds its arguments where it is dispatched (the C++ launcher, or the generated function with the
# kernel's own signature, kernels/dispatch.py). The other ways in go through here: kernel.grad(...), and a call
# recorded by qd.ad.Tape or run in forward mode by qd.ad.FwdMode, so each sees the arguments as one positional
# tuple. The errors use upstream's first words ("Missing argument 'b'", "Unexpected argument 'c'", "Multiple values
# for argument 'a'", "Too many arguments"), as the launcher's do, and are upstream's QuadrantsSyntaxError.
import inspect

from quadrants.base.errors import KernelArgumentError

_EMPTY = inspect.Parameter.empty
# upstream's words for a stream given to an adjoint or tangent launch (kernel.grad(..., qd_stream=s), qd.ad.FwdMode)
STREAM_WITH_AUTODIFF = ("qd_stream is not compatible with autodiff kernels. Streams cannot be used with reverse-mode "
                        "or forward-mode differentiation.")


class CallBinder:
    """bind(args, kwargs) -> the arguments in parameter order, defaults filled in, for one kernel."""

    __slots__ = ("name", "names", "defaults", "_index")

    def __init__(self, name, fn, names):
        self.name = name
        self.names = tuple(names)
        signature = inspect.signature(fn).parameters
        # a parameter the kernel adds itself (checkpoints' resume point) has no default and is never given by name
        self.defaults = tuple(signature[n].default if n in signature else _EMPTY for n in self.names)
        self._index = {n: k for k, n in enumerate(self.names)}

    def bind(self, args, kwargs):
        """The call's arguments as a tuple in parameter order; a KernelArgumentError names what does not fit."""
        n = len(self.names)
        if not kwargs and len(args) == n:  # the common case: nothing to do
            return args
        if len(args) > n:
            raise self._arity_error(len(args) + len(kwargs))
        bound = list(args) + [_EMPTY] * (n - len(args))
        for key, value in kwargs.items():
            k = self._index.get(key)
            if k is None:
                raise KernelArgumentError(f"Unexpected argument '{key}': kernel '{self.name}' has no parameter of "
                                          f"that name (its parameters: {self._listing()}).")
            if bound[k] is not _EMPTY:
                raise KernelArgumentError(f"Multiple values for argument '{key}': kernel '{self.name}' got it by "
                                          "position and by name.")
            bound[k] = value
        for k, value in enumerate(bound):
            if value is _EMPTY:
                if self.defaults[k] is _EMPTY:
                    if not kwargs:
                        raise self._arity_error(len(args))
                    raise KernelArgumentError(f"Missing argument '{self.names[k]}' of kernel '{self.name}' (its "
                                              f"parameters: {self._listing()}).")
                bound[k] = self.defaults[k]
        return tuple(bound)

    def _arity_error(self, given):
        n = len(self.names)
        what = f"Missing argument '{self.names[given]}'" if given < n else "Too many arguments"
        return KernelArgumentError(f"{what}: kernel '{self.name}' takes {n} argument(s) ({self._listing()}), but "
                                   f"{given} were given.")

    def _listing(self):
        return ", ".join(n if d is _EMPTY else f"{n}={d!r}" for n, d in zip(self.names, self.defaults))


def binder_of(kernel):
    """The CallBinder of a kernel object (FastKernel or Kernel), made on first use."""
    binder = getattr(kernel, "_qd_binder", None)
    if binder is None:
        definition = kernel.definition
        binder = CallBinder(kernel.fn.__name__, definition.fn, [p.name for p in definition.params])
        kernel._qd_binder = binder
    return binder
