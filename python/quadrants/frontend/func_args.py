# python/quadrants/frontend/func_args.py: binding a @qd.func call's arguments and checking its array arguments'
# annotations, with upstream Quadrants' error words.
import ast
import inspect

from quadrants.types.annotations import VectorType, scalar_dtype_name


class ArgumentError(Exception):
    """A call that does not fit the func's signature; the message uses upstream's wording
    ('Missing argument', 'Unexpected argument', 'Multiple values for argument', 'Too many arguments')."""


def bind_arguments(name, signature, args, kwargs):
    """signature.bind(*args, **kwargs) with the defaults applied; raises ArgumentError naming func `name`."""
    params = list(signature.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY) for p in params):
        try:  # signatures beyond plain parameters: Python's own rules and words
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(f"Wrong arguments for @qd.func '{name}': {exc}") from None
        bound.apply_defaults()
        return bound
    names = [p.name for p in params]
    if len(args) > len(params):
        raise ArgumentError(f"Too many arguments for @qd.func '{name}': it takes ({_listing(params)}), but got "
                            f"{len(args)} positional arguments")
    errors = [f"Multiple values for argument '{key}'" for key in kwargs if key in names[: len(args)]]
    errors += [f"Unexpected argument '{key}'" for key in kwargs if key not in names]
    errors += [f"Missing argument '{p.name}'" for p in params[len(args):]
               if p.name not in kwargs and p.default is inspect.Parameter.empty]
    if errors:
        raise ArgumentError("; ".join(errors) + f" in the call of @qd.func '{name}'")
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound


def misplaced_star(node):
    """Why the call `node` of a @qd.func spreads `*args` where upstream refuses it, or None. Upstream matches a
    func's arguments to its parameters positionally before it prunes unused ones, so a `*seq` must be the last
    argument, with no keyword arguments after it; its error code STARNOTLAST ends the message, as there."""
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred) and (i != len(node.args) - 1 or node.keywords):
            after = "a keyword argument follows it" if i == len(node.args) - 1 else \
                f"{len(node.args) - 1 - i} positional argument(s) follow it"
            return (f"* args can only be present as the last argument of a @qd.func call, with no keyword arguments "
                    f"after them, but argument {i + 1} is *{ast.unparse(arg.value)} and {after} "
                    f"(error code: STARNOTLAST)")
    return None


def _listing(params):
    return ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params)


def array_mismatch(name, annotation, array):
    """Why the array a func's `name: qd.types.ndarray(dtype=..., ndim=...)` parameter is given does not fit the
    annotation, in upstream's words, or None when it fits (a dtype or ndim left out fits any)."""
    dtype = annotation.dtype
    if dtype is not None:
        if isinstance(dtype, VectorType):
            wanted_shape = tuple(dtype.shape)
            wanted_dtype = scalar_dtype_name(float if dtype.dtype is None else dtype.dtype)  # qd.math.vec2: default_fp
        else:  # a scalar dtype; element_dim=1 or 2 without a shape: vectors or matrices of any size
            wanted_shape = () if not annotation.element_dim else None
            wanted_dtype = scalar_dtype_name(dtype)
        given_shape = tuple(array.element_shape)
        shape_fits = len(given_shape) == annotation.element_dim if wanted_shape is None else given_shape == wanted_shape
        if not shape_fits or wanted_dtype != array.dtype_name:
            if not wanted_shape and not given_shape:  # upstream's message for scalars
                return f"Expect element type {wanted_dtype} for argument {name}, but get {array.dtype_name}"
            return (f"Invalid value for argument {name} - required element type: "
                    f"{_element_text(wanted_shape, wanted_dtype)}, but {_element_text(given_shape, array.dtype_name)} "
                    "is provided")
    if annotation.ndim is not None and array.ndim != annotation.ndim:
        return f"Invalid value for argument {name} - required ndim={annotation.ndim}, but {array.ndim}d array is provided"
    return None


def _element_text(shape, dtype_name):
    """An element type as upstream's IR prints it: f32, or [Tensor (3) f32] for a 3-vector (any size: (*))."""
    if shape is None:
        return f"[Tensor (*) {dtype_name}]"
    return dtype_name if not shape else f"[Tensor ({', '.join(map(str, shape))}) {dtype_name}]"
