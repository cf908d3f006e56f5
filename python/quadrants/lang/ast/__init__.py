# python/quadrants/lang/ast/__init__.py: upstream's package path quadrants.lang.ast, for compatibility only.
# transform_tree: frontend/translator.py, which translates a kernel's function body into IR through it.
from quadrants.frontend.translator import transform_tree  # noqa: F401

__all__ = ["transform_tree"]
