# python/quadrants/data/matrix_entry_types.py: qd.Matrix.field(n, m, dtype=[[...], ...]): one dtype per entry.
#
# Upstream lets a vector/matrix field give each entry a type of its own, so that quantized entries of different
# kinds (a qd.types.quant.float beside a qd.types.quant.fixed) can be bit-packed together. The entries must compute
# in one type: an element is still one vector/matrix value of that dtype in kernels and in Python scope. A field
# whose entries differ has no array of its own: each entry is a scalar field (get_scalar_field()), placed on its
# own, as the composed fields of field_components.py are.
import numpy as np

from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.runtime import init as _runtime


def _compute_type(dtype):
    """The dtype an entry's values have in arithmetic: a quantized type's compute type, else the dtype itself."""
    if getattr(dtype, "_qd_quant", False):
        return _runtime.cook_dtype(dtype.compute)
    return _runtime.cook_dtype(dtype)


def _entries(dtype, element_shape):
    """{entry index: dtype} from a nested list/tuple/array of dtypes laid out as the element shape."""
    grid = np.empty(element_shape, dtype=object)
    rows = dtype.tolist() if isinstance(dtype, np.ndarray) else dtype
    kind = "Vector" if len(element_shape) == 1 else "Matrix"
    try:
        if len(element_shape) == 1:
            if len(rows) != element_shape[0] or any(isinstance(r, (list, tuple)) for r in rows):
                raise ValueError
            grid[:] = list(rows)
        else:
            if len(rows) != element_shape[0] or any(not isinstance(r, (list, tuple)) or len(r) != element_shape[1]
                                                    for r in rows):
                raise ValueError
            for i, row in enumerate(rows):
                grid[i, :] = list(row)
    except (ValueError, TypeError):
        raise ValueError(f"A {kind} field's dtype list must have the shape of its elements, {element_shape}, "
                         f"one dtype per entry, but got {dtype!r}.") from None
    return {tuple(int(k) for k in index): grid[index] for index in np.ndindex(*element_shape)}


def split_entry_types(dtype, element_shape):
    """(field dtype, entry quant types): for one dtype, (dtype, None); for a list of them, their common compute
    type and {entry index: its qd.types.quant type, or None for a plain dtype} -- or (dtype, None) again when every
    entry has the same dtype. Raises QuadrantsRuntimeError (as upstream) when the entries compute in different
    types."""
    if not isinstance(dtype, (list, tuple, np.ndarray)):
        return dtype, None
    entries = _entries(dtype, element_shape)
    first_index, first = next(iter(entries.items()))
    compute = _compute_type(first)
    for index, entry in entries.items():
        if _compute_type(entry) != compute:
            raise QuadrantsRuntimeError(
                f"Member fields of a matrix field must have the same compute type, but entry {first_index} is "
                f"{first!r} (computing in {compute}) and entry {index} is {entry!r} (computing in "
                f"{_compute_type(entry)}).")
    if all(entry == first for entry in entries.values()):
        return first, None
    return compute, {index: (entry if getattr(entry, "_qd_quant", False) else None)
                     for index, entry in entries.items()}


def check_options(kwargs):
    """Options that concern one array's memory, which a field of separately typed entries does not have."""
    for option in ("order", "needs_grad", "needs_dual"):
        if kwargs.get(option):
            raise ValueError(f"{option}= is not supported for a vector/matrix field whose entries have different "
                             "dtypes (each entry is a field of its own); give every entry one dtype, or leave out "
                             f"{option}=.")
