# python/quadrants/types/enums.py: upstream's enums qd.Layout and AutodiffMode (quadrants.types.enums).
import enum


class Layout(enum.IntEnum):
    """How the components of vector/matrix elements are stored: AOS (each element's components
    together) or SOA (each component in its own array). NULL: unspecified."""

    AOS = 0
    SOA = 1
    NULL = 2


class AutodiffMode(enum.IntEnum):
    """What a kernel object runs as (kernel.autodiff_mode, upstream's values): NONE its own build; VALIDATION
    while a qd.ad.Tape(validation=True) records it, its build that checks the global data access rule.
    FORWARD and REVERSE name upstream's derived kernels; here those are kernel.grad and qd.ad.FwdMode."""

    FORWARD = 0
    REVERSE = 1
    NONE = 2
    VALIDATION = 3


class SNodeGradType(enum.IntEnum):
    """What a field is to autodiff (upstream's x.snode.ptr.get_snode_grad_type()): a primal, the adjoint (.grad)
    or dual (.dual) of one; ADJOINT_CHECKBIT names upstream's check bits, here the read marks of
    qd.ad.Tape(validation=True), which are no field."""

    PRIMAL = 0
    ADJOINT = 1
    DUAL = 2
    ADJOINT_CHECKBIT = 3


__all__ = ["AutodiffMode", "Layout", "SNodeGradType"]
