# python/quadrants/frontend/purity.py: upstream's purity rule for @qd.kernel(fastcache=True), pure=True and @qd.pure.
# Requires: the kernel's decorator options (Translator.kernel_options); resolve_name and attribute reads report here.
# Ensures: nothing about the IR; only raises or warns.
# Rejects: a pure kernel (or a func it calls) reading a number, string or field from a global or closure variable,
#   directly or as an attribute of one: QuadrantsSyntaxError "[PURE.VIOLATION] ..." (a QuadrantsCompilationError);
#   an UPPERCASE name or a read inside qd.static(...) only warns (UserWarning), as upstream's transition period.
"""A pure kernel promises that what it computes depends on its arguments only, so that upstream's fast cache can
key it on them. Here the translation cache checks every value a translation read whether the kernel is pure or
not, so the promise changes no caching; it is still checked, as upstream does, so that a program that breaks it
fails here as it fails there. Exempt: functions in quadrants' own files, Enum members, attributes of the math and
numpy modules and of quadrants' modules (qd.math.pi), values reached through parameters."""
import enum
import math
import os
import types
import warnings

import numpy as np

from quadrants.data.field import Field
from quadrants.data.tensor import unwrap

_SCALARS = (int, float, str)  # bool is an int, as upstream checks it


def is_pure(options):
    """Whether the decorator options declare the kernel pure (fastcache=True and pure=True are one promise)."""
    return bool(options.get("pure") or options.get("fastcache"))


class PurityCheck:
    """The reads of one pure kernel's translation: objects reached from globals, and the rule applied to each."""

    def __init__(self):
        self._outside = {}  # id -> object reached from a global or closure variable (kept alive while checked)

    def name(self, tr, where, name, value):
        """A free name resolved (resolve_name): a global or closure value is from outside the parameters."""
        if where == "builtin" or name.startswith("_qd_") or _own_function(tr):  # _qd_: upstream's own names
            return
        if not isinstance(value, _SCALARS):
            self._outside[id(value)] = value
        if _violates(value):
            _report(tr, name, f"Accessing global variable {name} {type(value)} from outside the kernel's parameters")

    def attribute(self, tr, base, attr, value):
        """`base.attr` read at compile time: from an outside object, a number, string or field breaks the rule."""
        if id(base) not in self._outside or _own_function(tr):
            return
        if not isinstance(value, _SCALARS):
            self._outside[id(value)] = value
        if not _violates(value) or isinstance(value, enum.Enum) or base is math or base is np or _own_module(base):
            return
        _report(tr, attr, f"Accessing global var {attr} from outside function scope within pure kernel")


def _violates(value):
    return isinstance(value, _SCALARS) or isinstance(unwrap(value), Field)


def _own_module(value):
    """A quadrants module or class (not an instance, whose attributes may change)."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
    elif isinstance(value, type):
        name = value.__module__ or ""
    else:
        return False
    return name.split(".", 1)[0] == "quadrants"


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep


def _own_function(tr):
    """Whether the function being translated lies in quadrants' own files (the library's funcs)."""
    return os.path.realpath(tr.ctx.source.filename).startswith(_PACKAGE_DIR)


def _report(tr, name, what):
    message = f"[PURE.VIOLATION] {what}"
    if name.upper() == name or tr.static_depth:
        tr.reads.uncacheable("a purity warning")  # a cached translation would not warn again
        node = next((n for n in reversed(tr.node_stack) if hasattr(n, "lineno")), None)
        # Attributed to the kernel's (or func's) line that reads the value, not to the frontend.
        warnings.warn_explicit(f"{message} (a warning for an UPPERCASE name or inside qd.static(); pass it as a "
                               "parameter)", UserWarning, tr.ctx.source.filename, node.lineno if node else 0)
        return
    raise tr.fail(message, hint="pass the value as a kernel parameter (qd.template() for a compile-time value), or "
                                "drop fastcache=True / pure=True from the kernel.")
