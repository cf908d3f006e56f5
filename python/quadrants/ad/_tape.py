# python/quadrants/ad/_tape.py: qd.ad.Tape records kernel calls and runs their adjoints in reverse; custom gradients.
#
# Recording costs nothing outside a Tape: entering one gives the fast kernel class a Python __call__
# that records and then launches, and wraps the entries of template/dataclass kernels (Kernel._miss
# wraps the ones made while it is open); leaving it removes both.
import warnings

from quadrants.ad._adjoint import NoGradients, _is_torch_tensor, adjoint_launchers, tangent_launchers, torch_grad
from quadrants.ad._grad_check import GradChecker
from quadrants.ad._validation import clear_read_marks, validation_launchers
from quadrants.base import registry
from quadrants.data.grads import clear_all_duals, clear_all_gradients
from quadrants.kernels import kernel as kernels
from quadrants.kernels.call_args import STREAM_WITH_AUTODIFF, binder_of
from quadrants.runtime import _core, init as _runtime
from quadrants.types.enums import AutodiffMode

_open_tape = None  # the Tape recording now; one at a time, as upstream


def recording_tape():
    return _open_tape


class _Recorded:
    """An entry of a Python-dispatched kernel that records each successful call on the open Tape."""

    __slots__ = ("inner", "kernel")

    def __init__(self, inner, kernel):
        self.inner = inner
        self.kernel = kernel

    def __call__(self, *args):
        result = self.inner(*args)
        if _open_tape is not None:
            _open_tape.insert(self.kernel.function, args)
        return result


class _Validated(_Recorded):
    """An entry recording on a Tape(validation=True): it runs the kernel's validation build (_validation.py)."""

    __slots__ = ()

    def __call__(self, *args):
        result = validation_launchers(self.kernel)(args)
        if _open_tape is not None:
            _open_tape.insert(self.kernel.function, args)
        return result


def wrap_entry(kernel, entry):
    """Kernel._miss: an entry made while a Tape is open records its calls; one made while a FwdMode is open
    runs the forward-mode kernel."""
    if _open_fwd is not None:
        return _Dual(entry, kernel)
    if _open_tape is None:
        return entry
    return (_Validated if _open_tape.validating else _Recorded)(entry, kernel)


def _python_kernels():
    return [k for k in list(_runtime._live_arrays) if hasattr(k, "_instances") and hasattr(k, "function")]


def _start_recording(tape):
    global _open_tape

    _open_tape = tape
    fast = kernels._fast_kernel_class
    if fast is not None:
        def recording_call(self, *args, **kwargs):
            if kwargs:  # recorded in parameter order, as the adjoint takes them
                args = _bound_for_tape(self, args, kwargs)
            result = _core.Launcher.__call__(self, *args)
            if _open_tape is not None:
                _open_tape.insert(self, args)
            return result

        def validating_call(self, *args, **kwargs):
            if kwargs:
                args = _bound_for_tape(self, args, kwargs)
            result = validation_launchers(self)(args)
            if _open_tape is not None:
                _open_tape.insert(self, args)
            return result

        fast.__call__ = validating_call if tape.validating else recording_call
    wrapper = _Validated if tape.validating else _Recorded
    for kernel in _python_kernels():
        for key, entry in list(kernel._instances.items()):
            kernel._instances[key] = wrapper(entry, kernel)


def _bound_for_tape(kernel, args, kwargs):
    """A fast kernel's call under a Tape, in parameter order; a stream is refused, as upstream refuses it."""
    if "qd_stream" in kwargs:
        raise RuntimeError("qd_stream is not compatible with autograd Tape. Launch the kernel outside the Tape "
                           "context, or omit qd_stream.")
    return binder_of(kernel).bind(args, kwargs)


def _stop_recording():
    global _open_tape

    _open_tape = None
    fast = kernels._fast_kernel_class
    if fast is not None and "__call__" in fast.__dict__:
        del fast.__call__
    for kernel in _python_kernels():
        for key, entry in list(kernel._instances.items()):
            if isinstance(entry, _Recorded):
                kernel._instances[key] = entry.inner


class Tape:
    """Records the kernels launched inside `with qd.ad.Tape(loss=...)` and, on exit, seeds loss.grad with 1
    and runs their adjoints (kernel.grad) in reverse order.

    loss: a 0-d field or a one-element ndarray with a gradient (None: record only; call grad() yourself).
    clear_gradients: zero every field gradient (qd.ad.clear_all_gradients) on entry.
    grad_check: fields whose gradients are checked against central differences of the recorded calls
        (float64 loss; an AssertionError names those that disagree).
    validation: check the global data access rule (docs/autodiff.md): with qd.init(debug=True), a recorded
        kernel that overwrites an element of an array with a gradient that it, or a kernel recorded before it,
        read raises QuadrantsAssertionError before the write (without debug, a warning says nothing is checked).
    """

    def __init__(self, loss=None, clear_gradients=True, validation=False, grad_check=None):
        self.calls = []
        self.modes = []  # each recorded function's autodiff_mode before recording, restored on exit
        self.entered = False
        self.gradient_evaluated = False
        self.clear_gradients = clear_gradients
        self.validation = validation
        self.loss = loss
        self.eval_on_exit = loss is not None
        self.validating = bool(validation) and _runtime.config().debug
        if validation and not self.validating:  # upstream's warning: its checks are debug-mode assertions
            warnings.warn("Debug mode is disabled, autodiff valid check will not work. Please specify "
                          "`qd.init(debug=True)` to enable the check.", Warning, stacklevel=2)
        self.grad_check = list(grad_check or [])
        if self.grad_check and loss is None:
            raise RuntimeError("qd.ad.Tape(grad_check=...) needs a loss to differentiate.")
        self.grad_checker = None

    def __enter__(self):
        if self.entered:
            raise RuntimeError("Tape can be entered only once.")
        if _open_tape is not None:
            raise RuntimeError("Another qd.ad.Tape is already recording; tapes cannot be nested.")
        self.entered = True
        loss = self.loss
        if loss is not None:
            _check_loss(loss)
            if self.clear_gradients:
                clear_all_gradients()
            _fill(loss, 0.0)
            if self.grad_check:
                self.grad_checker = GradChecker(loss, self.grad_check)  # the fields' values the calls start from
        elif self.clear_gradients:
            clear_all_gradients()
        if self.validating:
            clear_read_marks()
        _start_recording(self)
        return self

    def __exit__(self, exc_type, value, tb):
        _stop_recording()
        try:
            if self.eval_on_exit and exc_type is None:
                self.grad()
        finally:
            for (func, _), mode in zip(self.calls, self.modes):
                _set_mode(func, mode)

    def insert(self, func, args):
        self.modes.append(getattr(func, "autodiff_mode", AutodiffMode.NONE))
        if self.validation:
            _set_mode(func, AutodiffMode.VALIDATION)
        self.calls.append((func, args))

    def grad(self):
        """Seeds loss.grad with 1 and runs the recorded calls' gradients in reverse order."""
        if not self.entered:
            raise RuntimeError("Before evaluating gradients tape must be entered.")
        if self.gradient_evaluated:
            raise RuntimeError("Gradients of grad can be evaluated only once.")

        if self.loss is not None:
            _fill(torch_grad(self.loss) if _is_torch_tensor(self.loss) else self.loss.grad, 1.0)

        for func, args in reversed(self.calls):
            if hasattr(func, "definition"):  # a kernel: its adjoint, without kernel.grad()'s warning
                try:
                    adjoint_launchers(getattr(func, "_qd_kernel", func))(args)  # a dispatch function's Kernel
                except NoGradients:
                    pass  # a kernel that touches no array with a gradient adds nothing (upstream runs it anyway)
            elif getattr(func, "grad", None) is not None:
                func.grad(*args)
        self.gradient_evaluated = True
        if self.grad_checker is not None:
            self.grad_checker.check(self.calls)


def _set_mode(func, mode):
    """Upstream's kernel.autodiff_mode, which a validating Tape sets to VALIDATION while it records."""
    try:
        func.autodiff_mode = mode
    except AttributeError:  # an object that takes no attributes: nothing to report
        pass


def _check_loss(loss):
    """Upstream's checks of a Tape's loss: one element, and a gradient to seed."""
    if _is_torch_tensor(loss):
        if loss.numel() != 1:
            raise RuntimeError("The loss of `Tape` must be a tensor only contains one element, but got shape "
                               f"{tuple(loss.shape)}.")
        if not loss.requires_grad:
            raise RuntimeError("Gradients of loss are not allocated, please set requires_grad=True for all tensors "
                               "that are required by autodiff.")
        return
    kind = "ndarray" if getattr(loss, "_kind", None) != "field" else "field"
    size = 1
    for d in loss.shape:
        size *= d
    if size != 1:
        what = "a 0-D field, i.e. scalar" if kind == "field" else "an ndarray with only one element"
        raise RuntimeError(f"The loss of `Tape` must be {what}, but got a {kind} of shape {tuple(loss.shape)}.")
    if getattr(loss, "grad", None) is None or (kind == "field" and loss.grad._place_node is None):
        what = ("use qd.field(..., needs_grad=True) for all fields" if kind == "field" else
                "set needs_grad=True for all ndarrays")
        raise RuntimeError(f"Gradients of loss are not allocated, please {what} that are required by autodiff.")


def _fill(container, value):
    if _is_torch_tensor(container):
        import torch

        with torch.no_grad():
            container.fill_(value)
    else:
        container.fill(value)


def grad_replaced(func):
    """Makes `func` (Python calling kernels) use the gradient given with @qd.ad.grad_for(func) under a Tape
    instead of the adjoints of the kernels it calls."""

    def decorated(*args, **kwargs):
        tape = _open_tape
        if tape is not None:
            _stop_recording()  # the kernels inside are not recorded: decorated.grad stands for them
            try:
                func(*args, **kwargs)
            finally:
                _start_recording(tape)
            tape.insert(decorated, args)
        else:
            func(*args, **kwargs)

    decorated.grad = None
    decorated.__name__ = getattr(func, "__name__", "grad_replaced")
    decorated.__wrapped__ = func
    return decorated


def grad_for(primal):
    """Decorates the gradient of a @qd.ad.grad_replaced function: `@qd.ad.grad_for(forward)`."""

    def decorator(func):
        def decorated(*args, **kwargs):
            func(*args, **kwargs)

        if not hasattr(primal, "grad"):
            raise RuntimeError(f"Primal function `{primal.__name__}` must be decorated by qd.ad.grad_replaced")
        if primal.grad is not None:
            raise RuntimeError("Primal function must be a **python** function instead of a quadrants kernel. Please "
                               "wrap the quadrants kernel in a @qd.ad.grad_replaced decorated python function instead.")
        primal.grad = decorated
        return decorated

    return decorator


def no_grad(func):
    """Makes `func` contribute nothing to gradients under a Tape: the kernels it calls are not differentiated."""
    decorated = grad_replaced(func)
    decorated.grad = lambda *args, **kwargs: None
    return decorated


_open_fwd = None  # the FwdMode open now


class _Dual:
    """An entry of a Python-dispatched kernel that runs the kernel's forward-mode version while a FwdMode is open."""

    __slots__ = ("inner", "kernel")

    def __init__(self, inner, kernel):
        self.inner = inner
        self.kernel = kernel

    def __call__(self, *args):
        return tangent_launchers(self.kernel)(args)  # the Kernel: it has the template key function


def _start_forward(mode):
    global _open_fwd


    _open_fwd = mode
    fast = kernels._fast_kernel_class
    if fast is not None:
        def forward_call(self, *args, **kwargs):
            if kwargs:
                if "qd_stream" in kwargs:
                    raise RuntimeError(STREAM_WITH_AUTODIFF)
                args = binder_of(self).bind(args, kwargs)
            return tangent_launchers(self)(args)

        fast.__call__ = forward_call
    for kernel in _python_kernels():
        for key, entry in list(kernel._instances.items()):
            kernel._instances[key] = _Dual(entry, kernel)


def _stop_forward():
    global _open_fwd

    _open_fwd = None
    fast = kernels._fast_kernel_class
    if fast is not None and "__call__" in fast.__dict__:
        del fast.__call__
    for kernel in _python_kernels():
        for key, entry in list(kernel._instances.items()):
            if isinstance(entry, _Dual):
                kernel._instances[key] = entry.inner


class FwdMode:
    """Forward-mode autodiff (upstream's qd.ad.FwdMode): inside `with qd.ad.FwdMode(loss=, param=, seed=)`,
    kernels also compute tangents (src/passes/forward_ad.cpp), so loss.dual holds the Jacobian-vector
    product d loss / d param . seed.

    param.dual is set to the seed on entry (seed: one value per element of param; may be left out for a
    one-element param) and back to 0 on exit; clear_gradients: zero every field's dual on entry.
    """

    def __init__(self, loss, param, seed=None, clear_gradients=True):
        self.loss = loss
        self.param = param
        self.seed = seed
        self.clear_gradients = clear_gradients

    def __enter__(self):
        import numpy as np


        if _open_fwd is not None or _open_tape is not None:
            raise RuntimeError("qd.ad.FwdMode cannot be nested or opened inside a qd.ad.Tape.")
        for what, c in (("loss", self.loss), ("param", self.param)):
            has_dual = getattr(c, "has_dual", None)  # a float field always has a .dual, maybe unplaced
            if not (has_dual() if callable(has_dual) else getattr(c, "dual", None) is not None):
                raise RuntimeError(f"Dual numbers of {what} are not allocated, please use qd.field(..., "
                                   "needs_dual=True) for all fields that are required by forward-mode autodiff.")
        shape = self.param.dual.to_numpy().shape
        size = int(np.prod(shape))
        seed = self.seed
        if seed is None:
            if size != 1:
                raise RuntimeError("qd.ad.FwdMode: seed is needed when the param has more than one element "
                                   f"(it has {size}).")
            seed = [1.0]
        seed = np.asarray(seed, dtype=np.float64)
        if seed.size != size:
            raise ValueError(f"qd.ad.FwdMode: seed has {seed.size} values, but param has {size} elements.")
        if self.clear_gradients:
            clear_all_duals()
            self.loss.dual.fill(0.0)  # also when the loss is an ndarray
        self.param.dual.from_numpy(seed.reshape(shape).astype(self.param.dual.to_numpy().dtype))
        _start_forward(self)
        return self

    def __exit__(self, exc_type, value, tb):
        _stop_forward()
        self.param.dual.fill(0.0)


registry.provide("wrap_kernel_entry", wrap_entry)  # kernels/kernel.py: calls are recorded while a Tape is open
registry.provide("recording_tape", recording_tape)  # kernels/pitfalls.py
