# python/quadrants/frontend/checkpoint_scan.py: the checkpoint table of a @qd.kernel(graph=True, checkpoints=True).
#
# Requires: the kernel's parsed source (source.py), whose AST is never mutated and outlives the table.
# Ensures: one CheckpointSite per checkpoint in source order, its position being the checkpoint's index (what a
#   resume launch starts from and what a yielding launch returns): each `with qd.checkpoint(cp_id, yield_on=...)`
#   block and, as upstream wraps them, each other `for` statement of the kernel body or of a
#   `while qd.graph.do_while(...)` body directly in it (an implicit checkpoint: no label, never yields). Upstream
#   gives the table only by walking the AST, so resume() can map a label before the kernel ever compiled.
# Rejects: a malformed qd.checkpoint call (arguments, cp_id that is not a static int, duplicate labels), a
#   checkpoint nested in another, a bare statement or a qd.graph.do_while in a checkpoint body. The wording is
#   upstream's, which its tests match; yield_on is resolved later, by the translator (checkpoint_translate.py).
import ast
import weakref

from quadrants.frontend import graph_spelling
from quadrants.frontend.checkpoint import checkpoint
from quadrants.frontend.dotted_names import dotted_parts

_tables = weakref.WeakKeyDictionary()  # FunctionSource -> CheckpointTable


class CheckpointSite:
    """One checkpoint: the AST statement it covers (a With or a For), its label (None when implicit) and the
    yield_on expression (None when implicit)."""

    __slots__ = ("node", "label", "yield_on")

    def __init__(self, node, label, yield_on):
        self.node = node
        self.label = label
        self.yield_on = yield_on


class CheckpointTable:
    """The kernel's checkpoints in source order (the yield_on arrays' IR positions: checkpoint_translate.py's
    flag_arg_ids, from a translation)."""

    def __init__(self, sites):
        self.sites = sites
        self.index_of = {id(site.node): k for k, site in enumerate(sites)}

    @property
    def labels(self):
        return [site.label for site in self.sites]

    @property
    def yield_on_labels(self):
        return [None if site.yield_on is None else ast.unparse(site.yield_on) for site in self.sites]

    @property
    def yields(self):
        """Whether any checkpoint can yield, which makes the kernel return a GraphStatus."""
        return any(site.yield_on is not None for site in self.sites)


def checkpoint_table(source):
    """The (cached) CheckpointTable of a kernel's FunctionSource; raises the user error of a malformed one."""
    table = _tables.get(source)
    if table is None:
        scan = _Scan(source)
        scan.body(source.tree.body, in_do_while=False)
        table = _tables[source] = CheckpointTable(scan.sites)
    return table


def is_checkpoint_call(expr, resolve):
    """Whether `expr` is a call of qd.checkpoint; resolve(node) gives what a dotted name stands for (or None)."""
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    spelled = (isinstance(func, ast.Attribute) and func.attr == "checkpoint") or (
        isinstance(func, ast.Name) and func.id == "checkpoint")
    return spelled and resolve(func) is checkpoint


class _Scan:
    def __init__(self, source):
        self.source = source
        self.sites = []

    def fail(self, node, message, hint=None):
        return self.source.error(node, message, hint)

    def resolve(self, node):
        """What a dotted name means in the kernel's module or closure (None when it is something else)."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        fn = self.source.fn
        value = fn.__globals__.get(parts[0])
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name == parts[0]:
                try:
                    value = cell.cell_contents
                except ValueError:  # a closure variable not assigned yet
                    return None
                break
        for part in parts[1:]:
            value = getattr(value, part, None)
        return value

    def checkpoint_with(self, stmt):
        return (isinstance(stmt, ast.With) and len(stmt.items) == 1
                and is_checkpoint_call(stmt.items[0].context_expr, self.resolve))

    def body(self, stmts, in_do_while):
        for stmt in stmts:
            if self.checkpoint_with(stmt):
                self.explicit(stmt)
            elif isinstance(stmt, ast.For):
                self.sites.append(CheckpointSite(stmt, None, None))
            elif (isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Call)
                  and graph_spelling.matches(stmt.test.func, "do_while")):
                self.body(stmt.body, in_do_while=True)

    def explicit(self, stmt):
        call = stmt.items[0].context_expr
        cp_id, yield_on = self.arguments(call)
        label = self.label(cp_id)
        if any(site.label is not None and site.label == label for site in self.sites):
            raise self.fail(call, f"qd.checkpoint(cp_id={label!r}, ...) declares a cp_id that is already used by "
                            f"another checkpoint in kernel {self.source.fn.__name__!r}; each label must be unique "
                            "so that status.checkpoint and kernel.resume(from_checkpoint=...) name one checkpoint")
        self.check_body(stmt.body)
        self.sites.append(CheckpointSite(stmt, label, yield_on))

    def arguments(self, call):
        """(cp_id node, yield_on node) of a written qd.checkpoint(...) call, checked as upstream checks them."""
        if not call.args and not call.keywords:
            raise self.fail(call, "qd.checkpoint() takes two arguments: `qd.checkpoint(cp_id, yield_on=flag)`")
        if len(call.args) > 2:
            raise self.fail(call, f"qd.checkpoint() takes at most 2 positional arguments (cp_id, yield_on); got "
                            f"{len(call.args)}")
        given = dict(zip(("cp_id", "yield_on"), call.args))
        for keyword in call.keywords:
            if keyword.arg not in ("cp_id", "yield_on"):
                raise self.fail(call, f"qd.checkpoint() got unexpected keyword argument {keyword.arg!r}; only "
                                "'cp_id' and 'yield_on' are supported")
            if keyword.arg in given:
                raise self.fail(call, f"qd.checkpoint() got `{keyword.arg}` both positionally and as a keyword")
            given[keyword.arg] = keyword.value
        if "cp_id" not in given:
            raise self.fail(call, "qd.checkpoint() is missing required argument `cp_id` (e.g. "
                            "`qd.checkpoint(0, yield_on=flag)` or `qd.checkpoint(Stage.SIM, yield_on=flag)`)")
        if "yield_on" not in given:
            raise self.fail(call, "qd.checkpoint() is missing required argument `yield_on` (e.g. "
                            "`qd.checkpoint(0, yield_on=overflow_flag)`)")
        if not isinstance(given["yield_on"], (ast.Name, ast.Attribute)):
            raise self.fail(given["yield_on"], "qd.checkpoint(yield_on=...) must reference a kernel ndarray "
                            "argument: a parameter (`yield_on=flag`), a @qd.data_oriented member (`yield_on="
                            "self.flag`) or a dataclass parameter's member (`yield_on=params.flag`)")
        return given["cp_id"], given["yield_on"]

    def label(self, node):
        """The cp_id as written: an int literal, or a module-level int or IntEnum member kept as is, so that
        status.checkpoint gives back Stage.SIM rather than its value."""
        value = node.value if isinstance(node, ast.Constant) else self.resolve(node)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise self.fail(node, "qd.checkpoint() first argument must be an int literal or an IntEnum value (e.g. "
                        "`Stage.SIM`); the cp_id must be known when the kernel is compiled, so that the host can "
                        "name the checkpoint in kernel.resume(from_checkpoint=...)")

    def check_body(self, stmts):
        """Each statement of a checkpoint body must be a loop or other compound statement: the checkpoint
        guards its top-level tasks, so a bare statement would be a task of its own (as upstream refuses it)."""
        for stmt in stmts:
            bare = isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or (
                isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant))
            if bare:
                raise self.fail(stmt, f"qd.checkpoint() body cannot contain a bare top-level {type(stmt).__name__} "
                                f"statement (line {stmt.lineno}): every top-level statement in a checkpoint must be "
                                "inside a for-loop (or other control-flow construct). Wrap the statement in "
                                "`for _ in range(1):` to keep the original intent")
            for inner in ast.walk(stmt):
                if isinstance(inner, ast.With) and self.checkpoint_with(inner):
                    raise self.fail(inner, "qd.checkpoint() cannot be nested inside another qd.checkpoint(); "
                                    "checkpoints in the same kernel must be flat siblings (a checkpoint inside "
                                    "qd.graph.do_while is fine)")
                if (isinstance(inner, ast.While) and isinstance(inner.test, ast.Call)
                        and graph_spelling.matches(inner.test.func, "do_while")):
                    raise self.fail(inner, "qd.graph.do_while() cannot be used inside a qd.checkpoint() block",
                                    "put the checkpoint inside the loop's body instead.")
