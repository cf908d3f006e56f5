# python/quadrants/frontend/graph_spelling.py: how kernel source spells the qd.graph constructs, current or deprecated.
#
# The deprecated flat names (qd.graph_parallel) are the very objects qd.graph holds, so only the source
# text tells the two spellings apart. Sections reject `while qd.graph.do_while(...)` by name (graph_sections.py);
# graph_do_while.py resolves it.
import ast
import warnings

# construct under qd.graph -> its deprecated flat name under qd
FLAT_NAMES = {"do_while": "graph_do_while", "parallel_context": "graph_parallel_context", "parallel": "graph_parallel"}


def is_deprecated_spelling(func, name):
    """Whether the call target `func` (an AST node) is the flat `qd.graph_<name>` or bare `graph_<name>`."""
    flat = FLAT_NAMES[name]
    return (isinstance(func, ast.Attribute) and func.attr == flat) or (isinstance(func, ast.Name) and func.id == flat)


def matches(func, name):
    """Whether `func` spells the construct `name`: `<anything>.graph.<name>`, `graph.<name>` or a flat spelling."""
    if isinstance(func, ast.Attribute) and func.attr == name:
        owner = func.value
        if (isinstance(owner, ast.Attribute) and owner.attr == "graph") or (
                isinstance(owner, ast.Name) and owner.id == "graph"):
            return True
    return is_deprecated_spelling(func, name)


def warn_if_deprecated(func, name, filename=None, line=None):
    """A DeprecationWarning when `func` uses the flat spelling; at the kernel's own file and line when given.
    Returns whether it warned."""
    if not is_deprecated_spelling(func, name):
        return False
    message = (f"qd.{FLAT_NAMES[name]}() is deprecated and will go away, as in upstream Quadrants: write "
               f"qd.graph.{name}() instead (the same construct).")
    if filename is None:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
    else:
        warnings.warn_explicit(message, DeprecationWarning, filename, line)
    return True
