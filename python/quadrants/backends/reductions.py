# python/quadrants/backends/reductions.py: standardized reductions (sum, max, min, cumsum).
"""Reductions with numpy's signatures: axis=None reduces (or, for cumsum, flattens) the whole array.

Sums take numpy's accumulator dtype (int64 for bool and small integers) even over no axis at all.
"""

import numpy


def build(ctx):
    """The reductions of the backend described by `ctx`, by name."""
    xp = ctx.xp

    def accumulator_dtype(function_name, numpy_function, a, dtype):
        if dtype is None:
            return ctx.numpy_result_dtype(numpy_function, a)
        return ctx.lib_dtype(function_name, dtype, None)

    @ctx.standard("{xp}.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)")
    def sum(a, axis=None, dtype=None, keepdims=False):
        """Sum of a over axis (all axes when None); small integers accumulate in int64, as numpy.sum."""
        ctx.check_arrays("sum", a=a)
        return xp.sum(a, axis=axis, dtype=accumulator_dtype("sum", numpy.sum, a, dtype), keepdims=keepdims)

    @ctx.standard("{xp}.max(a, axis=axis, keepdims=keepdims)")
    def max(a, axis=None, keepdims=False):
        """Maximum of a over axis (all axes when None), as numpy.max."""
        ctx.check_arrays("max", a=a)
        return xp.max(a, axis=axis, keepdims=keepdims)

    @ctx.standard("{xp}.min(a, axis=axis, keepdims=keepdims)")
    def min(a, axis=None, keepdims=False):
        """Minimum of a over axis (all axes when None), as numpy.min."""
        ctx.check_arrays("min", a=a)
        return xp.min(a, axis=axis, keepdims=keepdims)

    @ctx.standard("{xp}.cumulative_sum(a, axis=axis, dtype=dtype)")
    def cumsum(a, axis=None, dtype=None):
        """Cumulative sum of a along axis; axis=None runs over the flattened array, as numpy.cumsum."""
        ctx.check_arrays("cumsum", a=a)
        if axis is None:
            a, axis = xp.reshape(a, (-1,)), 0
        return xp.cumulative_sum(a, axis=axis, dtype=accumulator_dtype("cumsum", numpy.cumsum, a, dtype))

    return {function.__name__: function for function in (sum, max, min, cumsum)}
