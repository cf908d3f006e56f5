# tests/python/compat_probes/registry.py: the probes of docs/guide.md's compatibility table, by the row's first cell.
"""@probe(first_cell, status) registers a function that checks one row of the compatibility table.

A probe is a small kernel or API call whose result it checks (it raises on a mismatch). It is written for one
status of its row: for "yes" (and "accepted", "all accepted") it runs the construct; for "not yet" and "no" it
checks that the construct is absent or raises as the row says. tests/python/test_compatibility_table.py runs each
row's probe in a fresh qd.init(arch=qd.cpu) and fails when a row has no probe, a probe has no row, or the row's
status is not the one its probe was written for.
"""
from typing import Callable, NamedTuple

STATUSES = ("yes", "accepted", "all accepted", "not yet", "no")


class Probe(NamedTuple):
    row: str  # the row's first cell, exactly as docs/guide.md writes it
    status: str  # the row's "here" cell that the probe checks
    check: Callable[[], None]


PROBES = {}


def probe(row, status="yes"):
    """Registers the decorated function as the probe of the table row whose first cell is `row`."""
    if status not in STATUSES:
        raise ValueError(f"probe({row!r}): status must be one of {STATUSES}, but got {status!r}.")

    def register(check):
        if row in PROBES:
            raise ValueError(f"Two probes for the row {row!r}: {PROBES[row].check.__qualname__} and "
                             f"{check.__qualname__}.")
        PROBES[row] = Probe(row, status, check)
        return check

    return register
