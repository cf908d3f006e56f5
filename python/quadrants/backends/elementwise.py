# python/quadrants/backends/elementwise.py: standardized element-wise math (sin, arctan2, maximum, ...).
"""Element-wise functions with numpy's names and numpy's result dtypes on every backend.

On torch the inputs are first cast to the dtype numpy would return (float64 for sin of int32,
float16 for sin of int8), so that results agree with numpy within that dtype's precision.
"""

import numpy

# (name, array_api_compat name, numpy function giving the result dtype, summary)
_UNARY = (
    ("sqrt", "sqrt", numpy.sqrt, "Non-negative square root, element-wise, as numpy.sqrt."),
    ("sin", "sin", numpy.sin, "Sine, element-wise, as numpy.sin."),
    ("cos", "cos", numpy.cos, "Cosine, element-wise, as numpy.cos."),
    ("arccos", "acos", numpy.arccos, "Inverse cosine, element-wise, as numpy.arccos."),
    ("exp", "exp", numpy.exp, "Exponential, element-wise, as numpy.exp."),
    ("log", "log", numpy.log, "Natural logarithm, element-wise, as numpy.log."),
    ("abs", "abs", numpy.abs, "Absolute value (modulus for complex), element-wise, as numpy.abs."),
)

_BINARY = (
    ("arctan2", "atan2", numpy.arctan2, "Arc tangent of x1/x2 choosing the quadrant, as numpy.arctan2."),
    ("maximum", "maximum", numpy.maximum, "Element-wise maximum of x1 and x2 (scalars allowed), as numpy.maximum."),
    ("minimum", "minimum", numpy.minimum, "Element-wise minimum of x1 and x2 (scalars allowed), as numpy.minimum."),
)


def _name(function, name, summary):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = summary
    return function


def _unary(ctx, name, xp_name, numpy_function, summary):
    xp_function = getattr(ctx.xp, xp_name)

    def function(x):
        ctx.check_arrays(name, x=x)
        (x,) = ctx.follow_numpy_promotion(numpy_function, x)
        return xp_function(x)

    return ctx.standard(f"{{xp}}.{xp_name}(x)")(_name(function, name, summary))


def _binary(ctx, name, xp_name, numpy_function, summary):
    xp_function = getattr(ctx.xp, xp_name)

    def function(x1, x2):
        ctx.check_arrays(name, x1=x1, x2=x2)
        return xp_function(*ctx.follow_numpy_promotion(numpy_function, x1, x2))

    return ctx.standard(f"{{xp}}.{xp_name}(x1, x2)")(_name(function, name, summary))


def _complex_parts(ctx):
    xp = ctx.xp

    @ctx.standard("{xp}.real(val)")
    def real(val):
        """Real part, element-wise; a real array is returned as is, as in numpy.real."""
        ctx.check_arrays("real", val=val)
        return xp.real(val) if xp.isdtype(val.dtype, "complex floating") else val

    @ctx.standard("{xp}.imag(val), or {xp}.zeros_like(val) for a real val")
    def imag(val):
        """Imaginary part, element-wise; zeros of val's dtype for a real array, as in numpy.imag."""
        ctx.check_arrays("imag", val=val)
        return xp.imag(val) if xp.isdtype(val.dtype, "complex floating") else xp.zeros_like(val)

    @ctx.standard("{xp}.conj(x)")
    def conj(x):
        """Complex conjugate, element-wise, as a new array, as numpy.conj."""
        ctx.check_arrays("conj", x=x)
        return xp.conj(x)

    return real, imag, conj


def build(ctx):
    """The element-wise functions of the backend described by `ctx`, by name."""
    functions = [_unary(ctx, *entry) for entry in _UNARY]
    functions += [_binary(ctx, *entry) for entry in _BINARY]
    functions += _complex_parts(ctx)
    return {function.__name__: function for function in functions}
