# python/quadrants/frontend/local_lists.py: Python lists and tuples of kernel values bound to a name in a kernel.
#
# As upstream, `vs = [a, b, c]` copies each kernel value into a local of its own (upstream's expr_init of a
# list), so a later `a = ...` does not change vs[0], and `vs[1] = vs[2]` or `vs[0] += d` with a compile-time
# index stores into that local, converting to its type. The binding stays a Python list (of the locals' reads),
# so len(), qd.static loops and func calls see what they saw before. Python numbers in the list become locals too
# when the function assigns through the name (`xs = [0, 0]; xs[i] = v`), since upstream makes every entry a
# variable; otherwise they stay compile-time constants, which upstream would not allow in qd.static() but which
# cost nothing here.
import ast

from quadrants.frontend.ir_builder import Expr, local_name
from quadrants.frontend.targets import VarTarget, VectorTarget
from quadrants.frontend.values import StaticBinding, VectorValue, is_runtime
from quadrants.frontend.vector_ops import describe, is_number


def subscript_assigned_names(tree):
    """The names that `tree` (a function's AST) assigns through a subscript: `xs` for `xs[1] = v`, `xs[0][1] += v`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(_subscript_roots(target))
    return names


def _subscript_roots(target):
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_subscript_roots(t) for t in target.elts)) if target.elts else set()
    if not isinstance(target, ast.Subscript):
        return set()
    while isinstance(target, ast.Subscript):
        target = target.value
    return {target.id} if isinstance(target, ast.Name) else set()


class LocalListTranslator:
    """Mixed into the Translator: lists, tuples and dicts bound to names, and stores into their entries."""

    def declare_sequence(self, py_name, value):
        """Binds `py_name` to a list/tuple/dict whose kernel values (and numbers, when assigned through) are
        locals."""
        assigned = py_name in self.subscript_assigned_here()
        self.bind(py_name, StaticBinding(self.sequence_of_locals(py_name, value, assigned)))

    def subscript_assigned_here(self):
        tree = self.ctx.source.tree
        found = self.subscript_assigned_cache.get(id(tree))
        if found is None or found[0] is not tree:
            found = self.subscript_assigned_cache[id(tree)] = (tree, subscript_assigned_names(tree))
        return found[1]

    def sequence_of_locals(self, py_name, value, assigned):
        if type(value) is dict:
            return {key: self.entry_local(py_name, item, assigned) for key, item in value.items()}
        if type(value) not in (list, tuple):  # a namedtuple or another subclass: kept as it is
            return value
        items = [self.entry_local(py_name, item, assigned) for item in value]
        return items if type(value) is list else tuple(items)

    def entry_local(self, py_name, item, assigned):
        if isinstance(item, (list, tuple, dict)):
            return self.sequence_of_locals(py_name, item, assigned)
        if isinstance(item, Expr) or (assigned and is_number(item) and not isinstance(item, bool)):
            return Expr(f"(var {self.entry_decl(py_name, item)})")
        if isinstance(item, VectorValue):
            return VectorValue([Expr(f"(var {self.entry_decl(py_name, x)})") for x in item.entries], item.shape)
        return item  # a field, a struct, a string ...: kept as it is, as a compile-time entry

    def entry_decl(self, py_name, value):
        name = self._decl(self.names.fresh(py_name), value, None)
        self.entry_depths[name] = self.parallel_depth
        return name

    def sequence_entry_target(self, base, index, node):
        """The target of `xs[index] = ...` where xs is a Python list, tuple or dict: the local holding that entry."""
        kind = type(base).__name__
        if is_runtime(index):
            raise self.fail(f"a Python {kind} inside a kernel can only be indexed with compile-time values, but got "
                            f"{describe(index)}", kind="type",
                            hint="use a constant index or a qd.static(range(...)) loop, or make it a qd.Vector.")
        try:
            entry = base[index]
        except (IndexError, KeyError, TypeError) as exc:
            raise self.fail(f"{kind} index {index!r} cannot be assigned to: {type(exc).__name__}: {exc}",
                            kind="index") from None
        target = self.entry_target(entry)
        if target is None:
            text = ast.unparse(node).strip()
            raise self.fail(f"Variable '{text}' cannot be assigned. Maybe it is not a Quadrants object?",
                            kind="syntax", hint=f"'{text}' holds {describe(entry)}, which is fixed at compile time; "
                            "the entries that are kernel values are variables (and the numbers of a list that the "
                            "function itself assigns through).")
        return target

    def entry_target(self, entry):
        """A VarTarget/VectorTarget for an entry that is a list entry's local, else None."""
        names = [local_name(entry)] if isinstance(entry, Expr) else \
            [local_name(e) for e in entry.entries] if isinstance(entry, VectorValue) and entry.entries else [None]
        if not all(name in self.entry_depths for name in names):
            return None
        targets = [VarTarget(name, self.entry_depths[name]) for name in names]
        return targets[0] if isinstance(entry, Expr) else VectorTarget(targets, entry.shape)
