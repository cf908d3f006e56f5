# python/quadrants/frontend/matrix_slices.py: slices of vectors and matrices inside kernels: m[i, :], m[:, j],
# m[0:2, 1:3], v[1:], v[::2], read and assigned.
#
# Vectors and matrices are scalarized (one IR value or target per entry), so a slice is a compile-time
# selection of entries: its bounds must be known when the kernel is translated. An index beside it may be a
# kernel value (m[i, :] with a runtime i): each selected entry is then a runtime-indexed one. The result has
# numpy's shape for the same index (a row or column of a matrix is a vector), and the same selection of an
# assignment's targets stores into it: `m[i, :] = v`.
import itertools

from quadrants.frontend.ir_builder import Expr


def has_slice(parts):
    return any(isinstance(p, slice) for p in parts)


def reject_negative(tr, parts):
    """Upstream's error for a negative constant index or slice bound of a vector or matrix inside kernels (Python
    would count it from the end; upstream refuses it, so programs written for it never rely on either)."""
    for p in parts:
        bounds = (p.start, p.stop) if isinstance(p, slice) else (p,)
        if any(isinstance(b, int) and not isinstance(b, bool) and b < 0 for b in bounds):
            raise tr.fail("Negative indices are not supported in Quadrants kernels",
                          hint="count from the front: v[n - 1] is the last entry of an n-vector, v[:n - 1] all but it.")


def sliced(tr, shape, parts, pick, make):
    """The entries that `parts` (ints, kernel ints, at least one slice) select from a vector/matrix of `shape`.

    pick(index) gives the entry at a full index (a tuple of ints and kernel ints); make(entries, shape) builds
    the result (a VectorValue, or a VectorTarget for assignments). One selected entry is returned as it is.
    """
    if len(parts) > len(shape):
        raise tr.fail(f"{_text(shape)} has {len(shape)} dimension(s), but was indexed with {len(parts)}", kind="type")
    reject_negative(tr, parts)
    choices, result_shape = [], []
    for axis, p in enumerate(parts):
        if isinstance(p, slice):
            bounds = (p.start, p.stop, p.step)
            if any(isinstance(b, Expr) for b in bounds):
                raise tr.fail(f"Quadrants does not support variables in slice now: the slice bounds of {_text(shape)} "
                              "must be known at compile time, but got a kernel value",
                              kind="type", hint="use constants or qd.static() values, or index entry by entry in a "
                                                "qd.static(range(...)) loop.")
            if any(b is not None and (not isinstance(b, int) or isinstance(b, bool)) for b in bounds):
                raise tr.fail(f"{_text(shape)} can only be sliced with constant integers, but got {p!r}", kind="type")
            picked = list(range(*p.indices(shape[axis])))
            if not picked:
                raise tr.fail(f"the slice {p!r} of {_text(shape)} selects no entries", kind="type")
            choices.append(picked)
            result_shape.append(len(picked))
        elif isinstance(p, Expr):
            choices.append([p])
        elif isinstance(p, int) and not isinstance(p, bool) and -shape[axis] <= p < shape[axis]:
            choices.append([p % shape[axis]])
        else:
            raise tr.fail(f"index {p!r} is out of range for {_text(shape)}", kind="type")
    choices += [list(range(extent)) for extent in shape[len(parts):]]  # m[1:] keeps whole rows
    result_shape += list(shape[len(parts):])
    entries = [pick(index) for index in itertools.product(*choices)]
    if len(result_shape) == 0:
        return entries[0]
    return make(entries, tuple(result_shape))


def _text(shape):
    return f"a {shape[0]}-vector" if len(shape) == 1 else f"a {shape[0]}x{shape[1]} matrix"
