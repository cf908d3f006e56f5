# python/quadrants/backends/manipulation.py: standardized shape and dtype manipulation (tile, transpose, ...).
"""Shape manipulation with numpy's meaning on every backend.

transpose reverses (or permutes) all axes as numpy.transpose does, never torch.transpose's swap of
two axes; stack and concatenate promote mixed dtypes with numpy's rules.
"""

import numpy

from quadrants.backends import dtypes


def _as_tuple(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _common_dtype(ctx, arrays):
    """numpy's result dtype for joining `arrays`, as a library dtype."""
    name = numpy.result_type(*(dtypes.dtype_name(array) for array in arrays)).name
    return ctx.str_to_lib.get(name, arrays[0].dtype)


def _joining(ctx):
    xp = ctx.xp

    @ctx.standard("{xp}.stack(arrays, axis=axis)")
    def stack(arrays, axis=0):
        """Join arrays of one shape along a new axis, as numpy.stack."""
        ctx.check_arrays("stack", arrays=arrays)
        common = _common_dtype(ctx, arrays)
        return xp.stack([xp.astype(array, common, copy=False) for array in arrays], axis=axis)

    @ctx.standard("{xp}.concat(arrays, axis=axis)")
    def concatenate(arrays, axis=0):
        """Join arrays along an existing axis, as numpy.concatenate; axis=None joins them flattened."""
        ctx.check_arrays("concatenate", arrays=arrays)
        common = _common_dtype(ctx, arrays)
        arrays = [xp.astype(array, common, copy=False) for array in arrays]
        if axis is None:
            arrays = [xp.reshape(array, (-1,)) for array in arrays]
            axis = 0
        return xp.concat(arrays, axis=axis)

    return stack, concatenate


def _reshaping(ctx):
    xp = ctx.xp

    @ctx.standard("{xp}.tile(A, reps)")
    def tile(A, reps):
        """Repeat A the number of times given by reps along each axis, as numpy.tile."""
        ctx.check_arrays("tile", A=A)
        return xp.tile(A, _as_tuple(reps))

    @ctx.standard("{xp}.moveaxis(a, source, destination)")
    def moveaxis(a, source, destination):
        """Move axes of a to new positions, the others keeping their order, as numpy.moveaxis."""
        ctx.check_arrays("moveaxis", a=a)
        return xp.moveaxis(a, source, destination)

    @ctx.standard("{xp}.permute_dims(a, axes), axes defaulting to all axes reversed")
    def transpose(a, axes=None):
        """Permute the axes of a, reversing them when axes is None, as numpy.transpose."""
        ctx.check_arrays("transpose", a=a)
        return xp.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None else tuple(axes))

    @ctx.standard("{xp}.reshape(a, shape)")
    def reshape(a, shape):
        """a with a new shape and the same data in C order, as numpy.reshape; one entry may be -1."""
        ctx.check_arrays("reshape", a=a)
        return xp.reshape(a, _as_tuple(shape))

    return tile, moveaxis, transpose, reshape


def build(ctx):
    """The manipulation functions of the backend described by `ctx`, by name."""
    xp = ctx.xp

    @ctx.standard("{lib}.argwhere(a)")
    def argwhere(a):
        """Indices of the non-zero elements of a, one row per element, as numpy.argwhere."""
        ctx.check_arrays("argwhere", a=a)
        return ctx.lib.argwhere(a)

    @ctx.standard("{xp}.astype(x, dtype)")
    def cast(x, dtype):
        """A copy of x converted to dtype (a standardized str such as 'float32'), as x.astype in numpy."""
        ctx.check_arrays("cast", x=x)
        return xp.astype(x, ctx.lib_dtype("cast", dtype, "float64"))

    functions = (argwhere, cast) + _joining(ctx) + _reshaping(ctx)
    return {function.__name__: function for function in functions}
