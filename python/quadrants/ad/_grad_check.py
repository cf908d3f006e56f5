# python/quadrants/ad/_grad_check.py: qd.ad.Tape(grad_check=[...]): the Tape's gradients checked against central
# differences of the recorded kernels, as upstream's checker does.
#
# For each field to check, along a few random directions t: the loss is recomputed from the fields' values at
# the Tape's entry with x + eps*t and x - eps*t, and (L+ - L-) / 2eps must agree with <x.grad, t> within 1%
# for some eps in a decreasing range (a range, because the best step depends on the function's curvature).
import numpy as np

from quadrants.data.field import Field
from quadrants.runtime import init as _runtime

_EPS_RANGE = 2.0 ** np.arange(-3, -30, -2)


def _primal_fields():
    """Every placed field holding values (gradients and duals excluded): the state the recorded calls start from."""
    return [c for c in list(_runtime._live_arrays) if isinstance(c, Field) and c.shape is not None and
            getattr(c, "_grad_of", None) is None and getattr(c, "_dual_of", None) is None and
            hasattr(c._array, "fill")]


class GradChecker:
    """Snapshots the fields when the Tape is entered; check() runs after the gradients are computed."""

    def __init__(self, loss, to_check):
        if getattr(loss, "dtype", None) is None or loss.dtype.name != "f64":
            raise RuntimeError(f"qd.ad.Tape(grad_check=...) needs a float64 loss, but the loss is "
                               f"{getattr(getattr(loss, 'dtype', None), 'name', type(loss).__name__)}: finite "
                               "differences in float32 are too coarse to check gradients.")
        for x in to_check:
            has_grad = getattr(x, "has_grad", None)  # a float field always has a .grad, maybe unplaced
            if not (has_grad() if callable(has_grad) else getattr(x, "grad", None) is not None):
                raise RuntimeError(f"qd.ad.Tape(grad_check=...) checks fields with gradients, but got "
                                   f"{type(x).__name__} without one.")
        self.loss = loss
        self.to_check = list(to_check)
        self.fields = _primal_fields()
        self.saved = [np.asarray(f.to_numpy()) for f in self.fields]

    def _restore(self):
        for field, values in zip(self.fields, self.saved):
            field.from_numpy(values)

    def _loss_at(self, calls, x, shift):
        self._restore()
        x.from_numpy(np.asarray(x.to_numpy() + shift))
        for func, args in calls:
            func(*args)
        return float(np.asarray(self.loss.to_numpy()).reshape(-1)[0])

    def check(self, calls):
        """Raises AssertionError naming the fields whose gradient disagrees with central differences."""
        rng = np.random.default_rng(0)
        failed = []
        for index, x in enumerate(self.to_check):
            if x is self.loss:
                continue
            gradient = np.asarray(x.grad.to_numpy())
            errors = []
            for eps in _EPS_RANGE:
                direction = rng.random(gradient.shape)
                numerical = (self._loss_at(calls, x, eps * direction) - self._loss_at(calls, x, -eps * direction)) \
                    / (2 * eps)
                autodiff = float(np.sum(gradient * direction))
                error = abs(autodiff - numerical)
                errors.append(error / (abs(autodiff) + 1e-20))
                if error * 100 <= abs(autodiff):
                    break
            else:
                failed.append(f"variable {index} ({x._describe()}): smallest relative error {min(errors):.3g}, "
                              "expected at most 0.01")
        self._restore()
        for func, args in calls:  # leave the fields as the recorded calls left them
            func(*args)
        if failed:
            raise AssertionError("Grad check failed: Not all variables pass grad check: " + "; ".join(failed))
