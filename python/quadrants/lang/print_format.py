# python/quadrants/lang/print_format.py: f-strings and str.format() with kernel values, for print() in kernels.
#
# A value with a format spec (f"{x:.2f}", "{:.2f}".format(x)) becomes a print item `(fmt "SPEC" EXPR)`:
# the spec is printf's conversion without its '%', checked against the value's type when the kernel
# compiles (src/ir/print_format.h: '.2d' does not suit an f32). As upstream, "{}" fields number
# themselves from 0 whatever explicit numbers ("{1}") stand beside them.
import string

from .values import FormattedText


class SpecValue:
    """A kernel value (scalar or vector/matrix) to print with a format spec; vectors apply it per entry."""

    __slots__ = ("value", "spec")

    def __init__(self, value, spec):
        self.value = value
        self.spec = spec


def formatted_text(tr, template, args, kwargs):
    """`template.format(*args, **kwargs)` where some argument is a kernel value: a FormattedText for print()."""
    parts, auto = [], 0
    used_positions, used_names = set(), set()
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise tr.fail(f"bad format string {template!r}: {exc}", kind="type") from None
    for literal, name, spec, conversion in fields:
        if literal:
            parts.append(literal)
        if name is None:
            continue
        if name == "":
            key, auto = auto, auto + 1
        elif name.isdigit():
            key = int(name)
        elif name.isidentifier():
            key = name
        else:
            raise tr.fail(f"the format field {{{name}}} is not supported inside a kernel: use {{}}, {{0}} or {{name}}",
                          kind="type")
        if isinstance(key, int):
            if key >= len(args):
                raise tr.fail(f"the format string {template!r} needs a positional argument {key}, but "
                              f"{len(args)} were given", kind="syntax")
            value = args[key]
            used_positions.add(key)
        else:
            if key not in kwargs:
                raise tr.fail(f"the format string {template!r} names {{{key}}}, but no keyword argument "
                              f"{key}= was given", kind="syntax")
            value = kwargs[key]
            used_names.add(key)
        parts.append(field_value(tr, value, spec or "", conversion))
    unused = [str(k) for k in range(len(args)) if k not in used_positions] + sorted(set(kwargs) - used_names)
    if unused:
        raise tr.fail(f"the format string {template!r} does not use argument(s) {', '.join(unused)}",
                      kind="syntax")
    return FormattedText(parts)


def field_value(tr, value, spec, conversion):
    """One replacement field: Python's own formatting for compile-time values, else the kernel value."""
    from .exprs import is_runtime
    from .vector_ops import is_number

    if not is_runtime(value):
        convert = {None: lambda v: v, "s": str, "r": repr, "a": ascii}[conversion]
        try:
            return format(convert(value), spec)
        except (TypeError, ValueError) as exc:
            if not is_number(value) or conversion is not None:
                raise tr.fail(f"formatting {value!r} with {spec!r} failed: {exc}", kind="type") from None
            return SpecValue(value, spec)  # a printf-only spec such as 'i': printed by the kernel, as upstream
    # !r and !s show a kernel value as print() does (f"{x = }" implies !r).
    return SpecValue(value, spec) if spec else value
