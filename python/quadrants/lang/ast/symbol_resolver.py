# python/quadrants/lang/ast/symbol_resolver.py: upstream's path of ASTResolver, which resolves a dotted name in kernel
# source against a namespace; it lives in frontend/dotted_names.py.
from quadrants.frontend.dotted_names import ASTResolver  # noqa: F401

__all__ = ["ASTResolver"]
