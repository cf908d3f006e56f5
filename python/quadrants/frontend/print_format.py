# python/quadrants/frontend/print_format.py: f-strings, str.format() and `%` with kernel values, for print() and
# assert messages in kernels.
#
# A value with a format spec (f"{x:.2f}", "{:.2f}".format(x)) becomes a print item `(fmt "SPEC" EXPR)`:
# the spec is printf's conversion without its '%', checked against the value's type when the kernel
# compiles (src/ir/print_format.h: '.2d' does not suit an f32). As upstream, "{}" fields number
# themselves from 0 whatever explicit numbers ("{1}") stand beside them, and a compile-time number
# with a printf-style spec prints as the kernel would print it as a constant of the default type
# ("{:.2}".format(3.0) is "3.00", not Python's "3.0"): it is formatted here with the same rules, so
# the text stays a plain str that also works outside print().
import numbers
import re
import string

import numpy as np

from quadrants.frontend.ir_builder import string_text
from quadrants.frontend.values import FormattedText, is_runtime as runtime
from quadrants.frontend.vector_ops import is_number


class SpecValue:
    """A kernel value (scalar or vector/matrix) to print with a format spec; vectors apply it per entry."""

    __slots__ = ("value", "spec")

    def __init__(self, value, spec):
        self.value = value
        self.spec = spec


def merged_print_items(items):
    """Print items with neighbouring strings joined and empty ones dropped."""
    merged = []
    for item in items:
        if isinstance(item, str) and merged and isinstance(merged[-1], str):
            merged[-1] += item
        else:
            merged.append(item)
    return [item for item in merged if item != ""]


def print_item_text(ops, item):
    """The IR text of one print item (docs/IR.md, print): a string, an expression or (fmt "SPEC" EXPR)."""
    if isinstance(item, SpecValue):
        return f"(fmt {string_text(item.spec)} {ops.text(item.value)})"
    return string_text(item) if isinstance(item, str) else ops.text(item)


def formatted_text(tr, template, args, kwargs):
    """`template.format(*args, **kwargs)` in a kernel: a str when every field is known at compile time,
    else a FormattedText for print(). The arguments are checked as upstream checks them."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise tr.fail(f"bad format string {template!r}: {exc}", kind="type") from None
    keys = _field_keys(tr, fields)
    if keys is None:  # "{0[1]}", "{p.x}": Python's formatting, for compile-time values only
        if any(_is_runtime(a) for a in list(args) + list(kwargs.values())):
            raise tr.fail(f"the format string {template!r} indexes or names an attribute of an argument, which is "
                          f"not supported inside a kernel: use {{}}, {{0}} or {{name}}", kind="type")
        return _python_format(tr, template, args, kwargs)
    _check_arguments(tr, template, [k for k in keys if k is not None], args, kwargs)
    parts = []
    for (literal, _, spec, conversion), key in zip(fields, keys):
        if literal:
            parts.append(literal)
        if key is not None:
            value = args[key] if isinstance(key, int) else kwargs[key]
            parts.append(field_value(tr, value, spec or "", conversion))
    return _joined(parts)


def _field_keys(tr, fields):
    """Each field's argument (a position, a keyword, or None after a literal), or None for a field name
    that is more than a number or an identifier. "{}" fields count from 0 whatever else stands beside them."""
    keys, auto = [], 0
    for _, name, _, _ in fields:
        if name is None:
            keys.append(None)
        elif name == "":
            keys.append(auto)
            auto += 1
        elif name.isdigit():
            keys.append(int(name))
        elif name.isidentifier():
            keys.append(name)
        else:
            return None
    return keys


def _is_runtime(value):
    return runtime(value)


def _check_arguments(tr, template, keys, args, kwargs):
    """Upstream's rule: the highest field number + 1 arguments exactly, and every keyword used and given."""
    expected = max((k for k in keys if isinstance(k, int)), default=-1) + 1
    if expected != len(args):
        raise tr.fail(f"the format string {template!r}: Expected {expected} positional argument(s), but received "
                      f"{len(args)} instead.", kind="syntax")
    named = [k for k in keys if isinstance(k, str)]
    for key in named:
        if key not in kwargs:
            raise tr.fail(f"the format string {template!r} names {{{key}}}: Keyword '{key}' not found.",
                          kind="syntax")
    for key in kwargs:
        if key not in named:
            raise tr.fail(f"the format string {template!r} has no {{{key}}}: Keyword '{key}' not used.",
                          kind="syntax")


def _python_format(tr, template, args, kwargs):
    try:
        return template.format(*args, **kwargs)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
        raise tr.fail(f"formatting {template!r} failed: {exc}", kind="type") from None


def _joined(parts):
    """A str when every part is known at compile time, else text with kernel values for print()."""
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)
    return FormattedText(parts)


def field_value(tr, value, spec, conversion):
    """One replacement field: a compile-time value's text (printf's for numbers under a printf spec, else
    Python's), or the kernel value, under its spec, for print()."""
    if not _is_runtime(value):
        text = _printf_constant(tr, value, spec) if conversion is None else None
        if text is not None:
            return text
        convert = {None: lambda v: v, "s": str, "r": repr, "a": ascii}[conversion]
        try:
            return format(convert(value), spec)
        except (TypeError, ValueError) as exc:
            if not is_number(value) or conversion is not None:
                raise tr.fail(f"formatting {value!r} with {spec!r} failed: {exc}", kind="type") from None
            return SpecValue(value, spec)  # a printf-only spec such as 'i': printed by the kernel, as upstream
    # !r and !s show a kernel value as print() does (f"{x = }" implies !r).
    return SpecValue(value, spec) if spec else value


# Python's %-conversion: %[(key)][flags][width][.precision][length]type; the length (h, l, L) means nothing.
_PERCENT_FIELD = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d*)"
                            r"(?:\.(?P<precision>\*|\d*))?[hlL]?(?P<conversion>.?)", re.S)


def has_kernel_values(values):
    """Whether `template % values` needs the kernel: a value, or an entry of a tuple, exists only at run time."""
    return any(_is_runtime(v) for v in values) if isinstance(values, tuple) else _is_runtime(values)


def percent_formatted(tr, template, values):
    """`template % values` with kernel values in `values`: text with kernel values for print() and assert
    messages. Each %d, %f, %x... becomes a print item under that printf spec; %s and %r show a value as
    print() does. Compile-time values are formatted here, by Python."""
    values = list(values) if isinstance(values, tuple) else [values]
    parts, used, last = [], 0, 0
    for field in _PERCENT_FIELD.finditer(template):
        parts.append(template[last:field.start()])
        last = field.end()
        conversion = field["conversion"]
        if conversion == "%" and field.group(0) == "%%":
            parts.append("%")
            continue
        _check_percent_field(tr, template, field)
        if used == len(values):
            raise tr.fail(f"the format string {template!r} has more conversions than the {len(values)} value(s) "
                          f"given: not enough arguments for format string", kind="type")
        parts.append(_percent_value(tr, field, values[used]))
        used += 1
    if used != len(values):
        raise tr.fail(f"the format string {template!r} has {used} conversion(s) but {len(values)} value(s) are "
                      f"given: not all arguments converted during string formatting", kind="type")
    parts.append(template[last:])
    return _joined([p for p in parts if p != ""])


def _check_percent_field(tr, template, field):
    where = f"{field.group(0)!r} in the format string {template!r}"
    if field["key"] is not None:
        raise tr.fail(f"{where}: a mapping key cannot take kernel values; use positional conversions such as %d",
                      kind="type")
    if "*" in (field["width"] or "") + (field["precision"] or ""):
        raise tr.fail(f"{where}: a '*' width or precision cannot take kernel values; write the number in the "
                      f"format string", kind="type")
    if field["conversion"] not in tuple("diouxXeEfFgGsra"):
        raise tr.fail(f"{where}: unsupported format character {field['conversion']!r}; kernel values take "
                      f"d i o u x X e E f F g G, and s r a (shown as print() shows them)", kind="type")


def _percent_value(tr, field, value):
    """One %-conversion's part: Python's text for a compile-time value, else the kernel value under its spec."""
    conversion = field["conversion"]
    precision = "" if field["precision"] is None else "." + field["precision"]
    if not _is_runtime(value):
        try:
            return field.group(0) % (value,)
        except (TypeError, ValueError) as exc:
            raise tr.fail(f"formatting {value!r} with {field.group(0)!r} failed: {exc}", kind="type") from None
    if conversion in "sra":  # as print() shows the value: its type's format, under the width given
        spec = field["flags"] + field["width"]
    else:
        spec = field["flags"] + field["width"] + precision + conversion
    return SpecValue(value, spec) if spec else value


# printf's [flags][width][.precision][length][conversion], as src/ir/print_format.cpp parses it.
_PRINTF_SPEC = re.compile(r"(?P<flags>[-+ #0]*)(?P<width>\d*)(?P<precision>(?:\.\d*)?)"
                          r"(?:hh|ll|h|l|j|z|t|L)?(?P<conversion>[csdioxXufFeEaAgGnp]?)\Z")
_CONVERSIONS = {True: "di", False: "fFeEgG"}  # of a constant typed default_ip / default_fp


def _printf_constant(tr, value, spec):
    """A compile-time number formatted as the kernel prints a constant of the default type with printf
    spec `spec`, or None where the spec is not of printf's form (Python's formatting applies) or needs
    the kernel (%a, which Python's % lacks)."""
    if not spec or isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    parsed = _PRINTF_SPEC.match(spec)
    if parsed is None:
        return None
    conversion = parsed["conversion"]
    is_int = isinstance(value, numbers.Integral)
    dtype = tr.default_ip if is_int else tr.default_fp
    if conversion in ("c", "s", "n", "p"):
        raise tr.fail(f"formatting {value!r} with '{spec}': conversion '{conversion}' is not supported.", kind="type")
    if conversion in ("a", "A"):
        return None
    if conversion and conversion not in _CONVERSIONS[is_int]:
        raise tr.fail(f"formatting {value!r} (a {dtype} constant in a kernel) with '{spec}': '{spec}' doesn't match "
                      f"'{dtype}'.", kind="type")
    precision = parsed["precision"]
    if not is_int:
        value = float(np.float32(value)) if dtype == "f32" else float(value)  # the digits of the typed constant
        if not precision and dtype == "f64":
            precision = ".12"  # print's default for f64 (print_default_format)
    conversion = conversion or ("d" if is_int else "f")
    return f"%{parsed['flags']}{parsed['width']}{precision}{conversion}" % (int(value) if is_int else value)
