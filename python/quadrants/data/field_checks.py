# python/quadrants/data/field_checks.py: upstream's placement checks before a kernel compiles.
#
# A field made without a shape waits for `node.place(x)`; upstream raises a RuntimeError at the next kernel
# compile while one is still unplaced ("These field(s) are not placed"). Its gradient (needs_grad=True) or dual
# (needs_dual=True) is not placed with it: the program places it (`place(x, x.grad)`, `qd.root.lazy_grad()`),
# and until it does, the same check raises ("... however their grad field(s) are not placed"). A field made
# with a shape is placed at once, its gradient and dual beside it, so only shapeless fields are recorded here.
#
# Upstream holds the declared fields strongly until a check passes; here they are held weakly, so a field the
# program dropped (a temporary in a failed place() call) is not reported: no kernel can use it any more.
import gc
import os
import sys
import weakref

from quadrants.base import registry

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # quadrants/
_BAR = "=" * 44 + "\n"

# field -> where the program declared it ("file:line"), for the fields still to be checked.
_declared = weakref.WeakKeyDictionary()
# "grad"/"dual" -> {twin field: where its primal was declared}, for needs_grad/needs_dual twins still to be checked.
_twins = {"grad": weakref.WeakKeyDictionary(), "dual": weakref.WeakKeyDictionary()}


def _declaration_site():
    """file:line of the innermost caller outside the quadrants package (the program's qd.field() line)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "<unknown>"


def declared(field):
    """A field made without a shape: the next kernel compile checks that it was placed."""
    _declared[field] = _declaration_site()


def twin_needed(kind, twin, primal):
    """The gradient or dual (kind) of a shapeless needs_grad/needs_dual field: the program must place it."""
    _twins[kind][twin] = _declared.get(primal) or _declaration_site()


@registry.on_reset
def forget():
    """qd.reset(): the fields of the old runtime are no longer checked."""
    _declared.clear()
    for table in _twins.values():
        table.clear()


def _unplaced(table):
    """Drops the placed fields of table; returns [(field, site)] of those still unplaced."""
    for field in [f for f in list(table) if f._is_placed()]:
        del table[field]
    return list(table.items())


def _list(entries):
    return _BAR + _BAR.join(f"{field._describe()}, declared at {site}\n" for field, site in entries) + _BAR


def check_placed():
    """Raises upstream's RuntimeError when a declared field, or a gradient or dual that is needed, is unplaced."""
    if not _declared and not _twins["grad"] and not _twins["dual"]:
        return
    if _unplaced(_declared) or _unplaced(_twins["grad"]) or _unplaced(_twins["dual"]):
        gc.collect()  # fields in reference cycles (a vector field and its components) that the program dropped
    entries = _unplaced(_declared)
    if entries:
        raise RuntimeError(f"These field(s) are not placed:\n{_list(entries)}Please consider specifying a shape "
                           "for them. E.g.,\n\n  x = qd.field(float, shape=(2, 3))")
    for kind, table in _twins.items():
        entries = _unplaced(table)
        if entries:
            # "requrie" is upstream's spelling, which its tests match.
            raise RuntimeError(f"These field(s) requrie `needs_{kind}=True`, however their {kind} field(s) are not "
                               f"placed:\n{_list(entries)}Please consider place the {kind} field(s). E.g.,\n\n"
                               f"  qd.root.dense(qd.i, 1).place(x.{kind})\n\n Or specify a shape for the field(s). "
                               f"E.g.,\n\n  x = qd.field(float, shape=(2, 3), needs_{kind}=True)")
