# python/quadrants/interop/torch_ops.py: quadrants kernels as torch operators, visible to torch's graph and torch.compile.
import contextlib
import importlib
import pickle

from quadrants.runtime import _core

_picklable_classes = {}  # torch's CustomOpDef class -> its subclass that pickles by reference


@contextlib.contextmanager
def _kernels_skipped():
    _core.enter_fake_mode()
    try:
        yield
    finally:
        _core.exit_fake_mode()


def torch_op(name, *, mutates_args=(), device_types=None):
    """Registers a Python function that calls quadrants kernels as the torch operator `name`.

    The function must be fully type-annotated (torch.library's schema rules: Tensor, int, float, bool,
    lists of them; no void returns unless it only mutates arguments) and allocate its outputs with torch.
    The same function serves as the fake (meta) implementation: torch.compile traces it with fake tensors
    while kernels are skipped, so output shapes and dtypes come from the function's own allocations::

        @qd.torch_op("mylib::square")
        def square(x: torch.Tensor) -> torch.Tensor:
            out = torch.empty_like(x)
            square_kernel(x, out)
            return out

    Returns torch's CustomOpDef: call it like the function, and add a backward with
    `square.register_autograd(backward, setup_context=...)`.
    """
    import torch

    def register(fn):
        op = torch.library.custom_op(name, mutates_args=mutates_args, device_types=device_types)(fn)

        def fake(*args, **kwargs):
            with _kernels_skipped():
                return fn(*args, **kwargs)

        op.register_fake(fake)
        op.__class__ = _picklable_class(type(op))
        op._qd_name = (fn.__module__, fn.__qualname__)
        return op

    return register


def _picklable_class(op_class):
    """A subclass of torch's CustomOpDef whose instances pickle by reference, as functions do: the unpickling
    process imports the defining module, which registers the operator, and takes it from there. (torch's own
    CustomOpDef pickles its fields, among them the decorated function, whose name now leads to the op.)"""
    if op_class not in _picklable_classes:
        def __reduce__(self):
            module, qualname = self._qd_name
            if "<locals>" in qualname:
                raise pickle.PicklingError(f"torch_op '{qualname}' cannot be pickled: it is defined inside a function, "
                                           f"so another process cannot import it by name. Define it at the top level "
                                           f"of module '{module}'.")
            return _op_by_name, (module, qualname)

        _picklable_classes[op_class] = type(op_class.__name__, (op_class,), {"__reduce__": __reduce__,
                                                                              "__module__": op_class.__module__})
    return _picklable_classes[op_class]


def _op_by_name(module, qualname):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj
