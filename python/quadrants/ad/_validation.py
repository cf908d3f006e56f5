# python/quadrants/ad/_validation.py: qd.ad.Tape(validation=True): recorded kernels check the global data access rule.
#
# A kernel recorded on a validating Tape runs its validation build instead of its own: the same IR with a
# (validate (PRIMAL READ)...) clause, where READ is a u8 array of PRIMAL's shape that marks the elements
# read since the Tape opened; src/passes/validate_access.cpp marks reads and asserts before each write
# that the element is unmarked. Arrays with a gradient are checked (as upstream, whose check bits exist
# only beside adjoints). The marks of a container are made on first use, kept beside it (fields bind
# theirs into the compiled kernel as globals), and zeroed whenever a validating Tape opens. Nothing here
# runs outside such a Tape, and a kernel's own build carries no check.
import sys
import weakref

from quadrants.ad._adjoint import AdjointLaunchers, _field_grad, _is_torch_tensor, adjoint_text, grad_of, launchers_of
from quadrants.data.container import ArrayContainer
from quadrants.frontend.sparse_grads import has_sparse_grad
from quadrants.types.primitive_types import u8

_marks = []  # weak references to every READ array made, to zero them when a validating Tape opens


def read_marks(container):
    """The READ marks (u8, container's shape) of a field, ndarray or torch tensor, made zeroed on first use."""
    marks = getattr(container, "_qd_read_marks", None)
    if marks is not None:
        return marks
    if _is_torch_tensor(container):
        torch = sys.modules["torch"]
        marks = torch.zeros(container.shape, dtype=torch.uint8, device=container.device)
    else:
        element_shape = tuple(container._element_shape)
        full = tuple(container._array.shape)
        marks = ArrayContainer(u8, full[:len(full) - len(element_shape)], element_shape)
        marks.fill(0)
    container._qd_read_marks = marks
    _marks.append(weakref.ref(marks))
    return marks


def clear_read_marks():
    """Zeroes every READ array still alive: a validating Tape starts with nothing read."""
    alive = []
    for ref in _marks:
        marks = ref()
        if marks is None or (not _is_torch_tensor(marks) and marks._array.released):  # gone, or freed by qd.reset()
            continue
        alive.append(ref)
        if _is_torch_tensor(marks):
            marks.zero_()
        else:
            marks.fill(0)
    _marks[:] = alive


class ValidationLaunchers(AdjointLaunchers):
    """The validation builds of one kernel, one per (template key, which array arguments are checked)."""

    clause = "validate"
    suffix = "__read"

    def _companion(self, container):
        if _is_torch_tensor(container):
            return read_marks(container) if container.requires_grad else None
        return read_marks(container) if grad_of(container) is not None else None

    def _field_partner(self, container):
        if has_sparse_grad(container):  # read marks index dense storage: sparse fields are not checked
            return None
        return read_marks(container) if _field_grad(container) is not None else None

    def _partner_entry(self, entry):
        return (entry[0], entry[1] + self.suffix, "u8") + tuple(entry[3:])

    def _partnered_text(self, text, containers, array_grads, fields):
        if not array_grads and not fields:  # nothing checked: the kernel runs as it is
            return text, []
        text = adjoint_text(text, len(containers), array_grads, fields, self.clause, self.suffix, dtype="u8")
        return text, [self._field_partner(containers[k]) for k in fields]


def validation_launchers(kernel):
    """The ValidationLaunchers of a kernel object (FastKernel or Kernel), made on first use."""
    return launchers_of(kernel, ValidationLaunchers, "_qd_validations")
