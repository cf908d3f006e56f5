# python/quadrants/backends/conversion.py: standardized conversion to and from numpy arrays.
"""to_numpy and from_numpy; on the CPU both share memory with their input where the library allows."""

import numpy

from quadrants.backends.inference import array_origin


def build(ctx):
    """The conversion functions of the backend described by `ctx`, by name."""
    xp = ctx.xp

    @ctx.standard("numpy.asarray(x), x.cpu().numpy() or x.get() by library")
    def to_numpy(x):
        """x as a numpy.ndarray, sharing memory for CPU arrays and copied from a GPU."""
        ctx.check_arrays("to_numpy", x=x)
        if ctx.name == "torch":
            # A lazily conjugated or negated view cannot be exported; resolve it first.
            return x.detach().resolve_conj().resolve_neg().cpu().numpy()
        if ctx.name == "cupy":
            return x.get()
        return numpy.asarray(x)

    @ctx.standard("torch.from_numpy(a).to(device) or {xp}.asarray(a, device=device)")
    def from_numpy(a):
        """The numpy array a as an array of this backend; CPU backends share its memory."""
        if not isinstance(a, numpy.ndarray):
            origin = array_origin(a)
            got = type(a).__name__ if origin is None else f"an array of the {origin[0]} backend"
            raise TypeError(f"from_numpy() expected a to be a numpy.ndarray, got {got}.")
        if ctx.name == "torch":
            try:
                # torch.from_numpy shares memory even for 0-d arrays, where torch.asarray copies.
                return ctx.lib.from_numpy(a).to(ctx.native_device)
            except (TypeError, ValueError):
                pass  # negative strides or a byte order torch cannot view: asarray copies
        return xp.asarray(a, device=ctx.native_device)

    return {"to_numpy": to_numpy, "from_numpy": from_numpy}
