# python/quadrants/frontend/dotted_names.py: what a dotted name (`qd.lang.ops.atomic_add`) in kernel source means
# in a given namespace, without evaluating anything else. The checkpoint and graph-section scans spell their
# callees through dotted_parts; ASTResolver is upstream's quadrants.lang.ast.symbol_resolver.
import ast

_MISSING = object()


def dotted_parts(node):
    """['qd', 'lang', 'ops', 'atomic_add'] for a Name or a chain of Attributes on a Name; None for anything else
    (`x[i].attr`, `(a + b).attr`, a call), which a name lookup cannot resolve."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def resolve_dotted(node, scope, default=None):
    """The object the dotted name `node` names in `scope` (a dict such as globals(), or any object whose attributes
    hold the names), or `default` when it is not a dotted name or a part of it is missing."""
    parts = dotted_parts(node)
    if parts is None:
        return default
    value = scope
    for part in parts:
        if isinstance(value, dict):
            value = value.get(part, _MISSING)
        else:
            value = getattr(value, part, _MISSING)
        if value is _MISSING:
            return default
    return value


class ASTResolver:
    """Upstream's name for these helpers: resolve_to(node, wanted, scope), resolve_value(node, scope)."""

    @staticmethod
    def resolve_to(node, wanted, scope):
        """Whether the dotted name `node` names the object `wanted` (compared by identity) in `scope`."""
        return resolve_dotted(node, scope, _MISSING) is wanted

    @staticmethod
    def resolve_value(node, scope):
        """The object the dotted name `node` names in `scope`, or None."""
        return resolve_dotted(node, scope)


__all__ = ["ASTResolver", "dotted_parts", "resolve_dotted"]
