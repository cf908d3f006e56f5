# python/quadrants/ad/__init__.py: qd.ad, reverse-mode autodiff: Tape, clear_all_gradients, custom gradients.
#
# The adjoint kernels themselves come from the C++ pass src/passes/reverse_ad.cpp; this package
# pairs containers with their gradients (_grads.py), builds and launches adjoint kernels
# (_adjoint.py) and records kernel calls for the Tape (_tape.py).
"""`qd.ad`, autodiff (floor 8). `Tape` records the kernels launched inside it and on exit runs their adjoints in
reverse order; `FwdMode` makes kernels also compute tangents, so `loss.dual` holds a Jacobian-vector
product; `grad_replaced` and `grad_for` give a Python function that calls kernels a hand-written gradient,
and `no_grad` makes one contribute nothing; `clear_all_gradients` and `clear_all_duals` zero the `.grad`
and `.dual` of every field. The adjoint and tangent kernels come from the C++ passes
`src/passes/reverse_ad.cpp` and `src/passes/forward_ad.cpp`."""
from quadrants.ad._tape import FwdMode, Tape, grad_for, grad_replaced, no_grad
from quadrants.data.grads import clear_all_duals, clear_all_gradients

__all__ = ["FwdMode", "Tape", "clear_all_duals", "clear_all_gradients", "grad_for", "grad_replaced", "no_grad"]

# dir(qd.ad) lists upstream's names; clear_all_duals is quadrants' own (FwdMode clears duals itself, as upstream's).
_QUADRANTS_ONLY = frozenset({"clear_all_duals"})


def __dir__():
    return sorted(set(globals()) - _QUADRANTS_ONLY)
