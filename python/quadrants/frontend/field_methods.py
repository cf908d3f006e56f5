# python/quadrants/frontend/field_methods.py: field methods that run inside kernels, as upstream's: x.fill(v).
from quadrants.frontend.builtins import grouped
from quadrants.frontend.funcs import func
from quadrants.types.annotations import template


@func
def fill(field: template(), value: template()):
    """x.fill(v) inside a kernel: every element of x set to v, each launch (upstream's field_fill_quadrants_scope)."""
    for I in grouped(field):
        field[I] = value
