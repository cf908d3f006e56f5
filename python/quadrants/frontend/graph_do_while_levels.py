# python/quadrants/frontend/graph_do_while_levels.py: the level table of a graph kernel's qd.graph.do_while loops.
#
# Upstream numbers a kernel's `while qd.graph.do_while(flag):` loops as it meets them, outer before inner, and
# keeps per level the flag as written ("counter", "self.counter"), the level it is nested in (-1 at the top) and
# the flag's position among the kernel's flat arguments; programs and tests read it as
# kernel._primal.graph_do_while_levels. Here the first two come from the kernel's source, so they are known
# before (and whether or not) a translation ran or came from a cache; the positions come from the IR text of the
# last translation (graph_do_while.py emits `(graph_do_while FLAG ...)` in the same order).
import ast
import dataclasses
import re
import weakref

from quadrants.frontend import graph_spelling

_tables = weakref.WeakKeyDictionary()  # FunctionSource -> [(label, parent_id)]
_LOOP = re.compile(r"\(graph_do_while (\S+) ")


@dataclasses.dataclass
class GraphDoWhileLevel:
    """One qd.graph.do_while loop: its flag as written, the id of the loop it is nested in (-1: none) and the
    flag's position among the IR parameters of the last translation (-1 before one)."""

    cond_arg_name: str
    parent_id: int
    cond_cpp_arg_id: int = -1


def source_levels(source):
    """[(label, parent_id)] of the kernel's do_while loops in source order, outer before inner (cached)."""
    levels = _tables.get(source)
    if levels is None:
        levels = _tables[source] = []
        _scan(source.tree.body, -1, levels)
    return levels


def _scan(stmts, parent, levels):
    for stmt in stmts:
        test = getattr(stmt, "test", None)
        if (isinstance(stmt, ast.While) and isinstance(test, ast.Call) and len(test.args) == 1
                and graph_spelling.matches(test.func, "do_while")):
            levels.append((ast.unparse(test.args[0]), parent))
            _scan(stmt.body, len(levels) - 1, levels)
            continue
        for field in ("body", "orelse", "finalbody"):  # other compound statements at the kernel's top level
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
                _scan(inner, parent, levels)


def param_names(ir_text):
    """The names of a kernel's IR parameters, in order."""
    start = ir_text.find("(params ")
    names = []
    if start >= 0:
        depth, k = 0, start + len("(params ")
        while k < len(ir_text):
            ch = ir_text[k]
            if ch == "(":
                if depth == 0:
                    names.append(ir_text[k + 1:].split(" ", 2)[1].rstrip(")"))
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            k += 1
    return names


def flag_positions(ir_text):
    """The position among the kernel's IR parameters of each graph_do_while flag, in the order the loops appear."""
    position = {name: k for k, name in enumerate(param_names(ir_text))}
    return [position.get(flag, -1) for flag in _LOOP.findall(ir_text)]


def levels_of(source, ir_text):
    """The kernel's GraphDoWhileLevel list; ir_text: its last translation (None before one)."""
    positions = flag_positions(ir_text) if ir_text else []
    levels = source_levels(source)
    if len(positions) != len(levels):  # a loop the translation left out (qd.static): positions cannot be paired
        positions = []
    return [GraphDoWhileLevel(label, parent, positions[k] if positions else -1)
            for k, (label, parent) in enumerate(levels)]
