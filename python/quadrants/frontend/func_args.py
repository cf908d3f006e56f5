# python/quadrants/frontend/func_args.py: binding a @qd.func call's arguments, with upstream Quadrants' error words.
import inspect


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


def _listing(params):
    return ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params)
