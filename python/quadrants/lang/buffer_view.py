# python/quadrants/lang/buffer_view.py: upstream's module path for qd.BufferView (data/buffer_view.py).
from quadrants.data.buffer_view import BufferView  # noqa: F401

__all__ = ["BufferView"]
