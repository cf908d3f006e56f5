# python/quadrants/data/grads.py: the `.grad` and `.dual` companions of fields and ndarrays (needs_grad/needs_dual=True).
import weakref

from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.runtime import init as _runtime

# field -> the qd.init() generation it was made in: the fields whose gradient clear_all_gradients()
# zeroes (those of earlier generations were freed by qd.reset()).
_with_grads = weakref.WeakKeyDictionary()


def _check_float(primal, required):
    """False for integer dtypes, which have no gradient or dual; asked for explicitly (needs_grad=True on
    qd.field/qd.ndarray), that is upstream's error."""
    if primal.dtype.numpy.kind == "f":
        return True
    if required:
        kind = "field" if getattr(primal, "_kind", None) == "field" else "ndarray"
        raise QuadrantsRuntimeError(f"{primal.dtype.name} is not supported for {kind} with `needs_grad=True` or "
                                    "`needs_dual=True`: only float dtypes have gradients.")
    return False


def grad_twin(primal, make, required=False):
    """The gradient of `primal`: make() builds a container of the same dtype and shape (zeroed), or None
    for integer dtypes (lazy_grad() and struct members skip them; required=True raises instead)."""
    if not _check_float(primal, required):
        return None
    grad = make()
    grad._grad_of = weakref.ref(primal)
    if getattr(primal, "_kind", None) == "field":
        _with_grads[primal] = _runtime.generation()
    return grad


def dual_twin(primal, make, required=False):
    """The dual (forward-mode tangent) of `primal`, as grad_twin."""
    if not _check_float(primal, required):
        return None
    dual = make()
    dual._dual_of = weakref.ref(primal)
    if getattr(primal, "_kind", None) == "field":
        _with_duals[primal] = _runtime.generation()
    return dual


_with_duals = weakref.WeakKeyDictionary()


def clear_all_duals():
    """Sets the dual of every field created with needs_dual=True to zero."""
    generation = _runtime.generation()
    for primal, made in list(_with_duals.items()):
        if made != generation:
            del _with_duals[primal]
            continue
        dual = primal.dual
        if dual is not None and getattr(dual, "_place_node", True) is not None and hasattr(dual._array, "fill"):
            dual.fill(0)


def clear_all_gradients():
    """Sets the gradient of every field created with needs_grad=True to zero."""
    generation = _runtime.generation()
    for primal, made in list(_with_grads.items()):
        if made != generation:
            del _with_grads[primal]
            continue
        grad = primal.grad
        if grad is not None and getattr(grad, "_place_node", True) is not None and hasattr(grad._array, "fill"):
            grad.fill(0)
