# python/quadrants/types/enums.py: upstream's qd.Layout (quadrants.types.enums.Layout).
import enum


class Layout(enum.IntEnum):
    """How the components of vector/matrix elements are stored: AOS (each element's components
    together) or SOA (each component in its own array). NULL: unspecified."""

    AOS = 0
    SOA = 1
    NULL = 2


__all__ = ["Layout"]
