# python/quadrants/ad/__init__.py: qd.ad, reverse-mode autodiff: Tape, clear_all_gradients, custom gradients.
#
# The adjoint kernels themselves come from the C++ pass src/passes/reverse_ad.cpp; this package
# pairs containers with their gradients (_grads.py), builds and launches adjoint kernels
# (_adjoint.py) and records kernel calls for the Tape (_tape.py).
from quadrants.ad._tape import FwdMode, Tape, grad_for, grad_replaced, no_grad
from quadrants.data.grads import clear_all_duals, clear_all_gradients

__all__ = ["FwdMode", "Tape", "clear_all_duals", "clear_all_gradients", "grad_for", "grad_replaced", "no_grad"]
