# python/quadrants/backends/creation.py: standardized array creation (zeros, arange, meshgrid, ...).
"""Creation functions with numpy's signatures and defaults on every backend.

numpy's defaults win: zeros/ones/empty/linspace give float64 and arange infers its dtype from its
arguments as numpy does, where torch would use its float32 default.
"""

import numpy

from quadrants.backends.inference import array_origin


def build(ctx):
    """The creation functions of the backend described by `ctx`, by name."""
    xp = ctx.xp

    @ctx.standard("{xp}.zeros(shape, dtype=dtype, device=device)")
    def zeros(shape, dtype=None):
        """Array of zeros of the given shape; dtype=None gives 'float64', as in numpy.zeros."""
        return xp.zeros(shape, dtype=ctx.lib_dtype("zeros", dtype, "float64"), device=ctx.native_device)

    @ctx.standard("{xp}.ones(shape, dtype=dtype, device=device)")
    def ones(shape, dtype=None):
        """Array of ones of the given shape; dtype=None gives 'float64', as in numpy.ones."""
        return xp.ones(shape, dtype=ctx.lib_dtype("ones", dtype, "float64"), device=ctx.native_device)

    @ctx.standard("{xp}.empty(shape, dtype=dtype, device=device)")
    def empty(shape, dtype=None):
        """Uninitialized array of the given shape; dtype=None gives 'float64', as in numpy.empty."""
        return xp.empty(shape, dtype=ctx.lib_dtype("empty", dtype, "float64"), device=ctx.native_device)

    @ctx.standard("{xp}.arange(start, stop, step, dtype=dtype, device=device)")
    def arange(start, stop=None, step=1, dtype=None):
        """Evenly spaced values in [start, stop), or [0, start) when stop is None, as in numpy.arange.

        dtype=None infers the dtype from start, stop and step as numpy does ('int64' for ints,
        'float64' as soon as one is a float).
        """
        bounds = (start, step) if stop is None else (start, stop, step)
        default = numpy.result_type(*bounds).name
        lib_dtype = ctx.lib_dtype("arange", dtype, default)
        return xp.arange(start, stop, step, dtype=lib_dtype, device=ctx.native_device)

    @ctx.standard("{xp}.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, device=device)")
    def linspace(start, stop, num=50, endpoint=True, dtype=None):
        """num evenly spaced values from start to stop, as in numpy.linspace; dtype=None gives 'float64'.

        Integer dtypes round towards minus infinity, as numpy does.
        """
        lib_dtype = ctx.lib_dtype("linspace", dtype, "float64")
        values = xp.linspace(start, stop, num, endpoint=endpoint, dtype=ctx.str_to_lib["float64"],
                             device=ctx.native_device)
        if xp.isdtype(lib_dtype, "integral"):
            return xp.astype(xp.floor(values), lib_dtype)
        return xp.astype(values, lib_dtype, copy=False)

    @ctx.standard("{xp}.meshgrid(*xi, indexing=indexing)")
    def meshgrid(*xi, indexing="xy"):
        """Coordinate arrays from coordinate vectors, as numpy.meshgrid ('xy' or 'ij' indexing)."""
        ctx.check_arrays("meshgrid", xi=xi)
        return xp.meshgrid(*xi, indexing=indexing)

    @ctx.standard("{xp}.asarray(a, copy=True)")
    def copy(a):
        """A new array holding a copy of a, as numpy.copy; lists and scalars are read as numpy would."""
        ctx.check_arrays("copy", a=a)
        if array_origin(a) is None:
            a = numpy.asarray(a)
        return xp.asarray(a, copy=True, device=ctx.native_device)

    return {function.__name__: function for function in (zeros, ones, empty, arange, linspace, meshgrid, copy)}
