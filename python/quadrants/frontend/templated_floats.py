# python/quadrants/frontend/templated_floats.py: qd.init(raise_on_templated_floats=True), upstream's guard against
# recompiles.
#
# A float that a kernel bakes in (a qd.template() argument, a float attribute of a data_oriented object passed as
# one, a float global or closure variable) specializes the kernel per value: each new value compiles it again.
# With the option on, upstream refuses such floats: a ValueError for template arguments, a compile error for
# captured names. Checked only when a kernel meets a new specialization, never on the per-call path.
from quadrants.runtime import init as _runtime


def enabled():
    options = _runtime.config().options
    return bool(options is not None and getattr(options, "raise_on_templated_floats", False))


def _is_float(value):
    import numpy as np

    return isinstance(value, (float, np.floating))


def _float_path(value, path, seen):
    """The attribute path to a float in a template value (itself, or a data_oriented object's members), or None."""
    if _is_float(value):
        return path
    if getattr(type(value), "_data_oriented", False) and id(value) not in seen:
        seen.add(id(value))
        for name, member in vars(value).items():
            found = _float_path(member, f"{path}.{name}", seen)
            if found is not None:
                return found
    return None


def check_template_arguments(kernel_name, params, positions, args):
    """A ValueError naming the first template argument of this call that is, or holds, a float."""
    for k in positions:
        found = _float_path(args[k], params[k].name, set())
        if found is not None:
            raise ValueError(f"Kernel '{kernel_name}': template argument '{found}' is a float "
                             f"({_value_at(args[k], found)!r}), and qd.init(raise_on_templated_floats=True) refuses "
                             "floats baked into a kernel: each new value would compile it again. Pass it as a "
                             "runtime argument (annotate it qd.f32) instead.")


def _value_at(value, path):
    for name in path.split(".")[1:]:
        value = getattr(value, name)
    return value


def check_captured(translator, name, value):
    """The compile error for a float global or closure variable a kernel reads while the option is on."""
    if _is_float(value) and not isinstance(value, bool) and enabled():
        raise translator.fail(f"'{name}' is a Python float ({value!r}) captured at compile time, and "
                              "qd.init(raise_on_templated_floats=True) refuses floats baked into a kernel: each new "
                              "value would compile it again", hint="pass it as a kernel argument annotated qd.f32.")
