# python/quadrants/lang/kernel_arguments.py: upstream's quadrants.lang.kernel_arguments: ArgMetadata, the record of
# one kernel parameter that upstream's argument hasher (lang/_fast_caching/args_hasher.py) takes beside each value.
import inspect


class ArgMetadata:
    """A parameter's annotation, name and default, as upstream passes them around (ours: kernels/definition.py's
    KernelParam, which also holds the parameter's kind)."""

    def __init__(self, annotation, name, default=inspect.Parameter.empty):
        self.annotation = annotation
        self.name = name
        self.default = default

    def __repr__(self):
        return f"ArgMetadata(annotation={self.annotation!r}, name={self.name!r}, default={self.default!r})"


__all__ = ["ArgMetadata"]
