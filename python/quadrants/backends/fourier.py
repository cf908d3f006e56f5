# python/quadrants/backends/fourier.py: standardized discrete Fourier transforms (fft ... irfftn, fftshift).
"""numpy.fft's functions and defaults on every backend, all through array_api_compat's n-dimensional
transforms (torch's own 1-d and 2-d ones take `dim`, not `axis`).

Inputs are cast as numpy.fft casts them: integers and bools to float64, float16 to float32, so an
int32 array transforms to complex128 on torch as on numpy.
"""

# transform family -> (array_api_compat name, summary of the numpy counterpart)
_TRANSFORMS = {
    "fft": ("fftn", "discrete Fourier transform"),
    "ifft": ("ifftn", "inverse discrete Fourier transform"),
    "rfft": ("rfftn", "discrete Fourier transform of real input"),
    "irfft": ("irfftn", "inverse of rfft, giving real output"),
}


def _numpy_input(ctx, a):
    """a cast to the precision numpy.fft computes in."""
    xp = ctx.xp
    if xp.isdtype(a.dtype, ("bool", "integral")):
        return xp.astype(a, ctx.str_to_lib["float64"])
    if a.dtype == ctx.str_to_lib["float16"]:
        return xp.astype(a, ctx.str_to_lib["float32"])
    return a


def _norm(norm):
    # numpy's norm=None means 'backward'; array_api_compat wants the name spelled out.
    return "backward" if norm is None else norm


def _one_dimensional(ctx, name, xp_name, summary):
    transform = getattr(ctx.xp.fft, xp_name)

    def function(a, n=None, axis=-1, norm=None):
        ctx.check_arrays(name, a=a)
        return transform(_numpy_input(ctx, a), s=None if n is None else (n,), axes=(axis,), norm=_norm(norm))

    function.__doc__ = f"1-d {summary} along axis, as numpy.fft.{name}."
    return function


def _n_dimensional(ctx, name, xp_name, summary, default_axes):
    transform = getattr(ctx.xp.fft, xp_name)

    def function(a, s=None, axes=default_axes, norm=None):
        ctx.check_arrays(name, a=a)
        if axes is None and s is not None:
            axes = tuple(range(-len(s), 0))  # numpy transforms the last len(s) axes
        axes = None if axes is None else tuple(axes)
        return transform(_numpy_input(ctx, a), s=None if s is None else tuple(s), axes=axes, norm=_norm(norm))

    function.__doc__ = f"{'2-d' if default_axes else 'n-d'} {summary} over axes, as numpy.fft.{name}."
    return function


def _shift(xp, shift, x, axes):
    # An empty axes tuple shifts nothing; numpy returns a copy where torch.roll rejects it.
    if axes is not None and not isinstance(axes, int) and len(axes) == 0:
        return xp.asarray(x, copy=True)
    return shift(x, axes=axes)


def _shifts(ctx):
    xp = ctx.xp

    @ctx.standard("{xp}.fft.fftshift(x, axes=axes)")
    def fftshift(x, axes=None):
        """Move the zero-frequency term to the centre, over axes (all when None), as numpy.fft.fftshift."""
        ctx.check_arrays("fftshift", x=x)
        return _shift(xp, xp.fft.fftshift, x, axes)

    @ctx.standard("{xp}.fft.ifftshift(x, axes=axes)")
    def ifftshift(x, axes=None):
        """Inverse of fftshift, over axes (all when None), as numpy.fft.ifftshift."""
        ctx.check_arrays("ifftshift", x=x)
        return _shift(xp, xp.fft.ifftshift, x, axes)

    return fftshift, ifftshift


def _named(ctx, function, name, maps_to):
    function.__name__ = function.__qualname__ = name
    return ctx.standard(maps_to)(function)


def build(ctx):
    """The Fourier transforms of the backend described by `ctx`, by name."""
    functions = list(_shifts(ctx))
    for name, (xp_name, summary) in _TRANSFORMS.items():
        functions.append(_named(ctx, _one_dimensional(ctx, name, xp_name, summary), name,
                                f"{{xp}}.fft.{xp_name}(a, s=(n,), axes=(axis,), norm=norm)"))
        for suffix, default_axes in (("2", (-2, -1)), ("n", None)):
            function = _n_dimensional(ctx, name + suffix, xp_name, summary, default_axes)
            functions.append(_named(ctx, function, name + suffix, f"{{xp}}.fft.{xp_name}(a, s=s, axes=axes, norm=norm)"))
    return {function.__name__: function for function in functions}
