# python/quadrants/frontend/checkpoint_translate.py: checkpoints of a @qd.kernel(graph=True, checkpoints=True) in IR.
#
# Requires: Translator.kernel_options with checkpoints=True; the kernel's CheckpointTable (checkpoint_scan.py); the
#   hidden scalar parameter RESUME_PARAM (checkpoint_kernel.py adds it) and the kernel's hidden i32 return.
# Ensures: a local holds the resume point, read from RESUME_PARAM first thing. Checkpoint k's top-level statements
#   run only while that point is <= k: its parallel_fors get an empty extent otherwise (they stay top-level tasks,
#   so they stay parallel, on CUDA too), its other statements an `if`. After a checkpoint with yield_on that ran,
#   a nonzero flag returns k, which ends the launch (and so any qd.graph.do_while, on the CPU and CUDA alike); the
#   kernel ends returning -1. Each qd.graph.do_while iteration ends by setting the resume point to 0, so that only
#   a resumed launch's first iteration skips anything. Statements outside checkpoints always run.
# Rejects: qd.checkpoint where the table has no entry for it (outside the kernel's top level or a do_while body
#   directly in it), a yield_on that is not a 0-d qd.i32 ndarray argument.
import ast
import re

from quadrants.frontend.checkpoint_scan import checkpoint_table, is_checkpoint_call
from quadrants.frontend.graph_do_while_levels import param_names
from quadrants.frontend.ir_builder import Stmt, _sexpr_end
from quadrants.frontend.values import ArrayRef

RESUME_PARAM = "__qd_resume_from"
NOT_DONE = -1  # what a launch that ran to its end returns


class CheckpointTranslator:
    """The Translator's part for checkpoints; state: checkpoint_sites (the CheckpointTable, None outside a
    checkpoints kernel), resume_name (the resume point's local) and checkpoint_flags (index -> array IR name)."""

    checkpoint_sites = None
    resume_name = None
    _in_checkpoint = False  # while a checkpoint's own statements are translated: its For is no checkpoint again

    def begin_checkpoints(self):
        """In the kernel's prologue, once its parameters are bound."""
        if not self.kernel_options.get("checkpoints"):
            return
        self.checkpoint_sites = checkpoint_table(self.ctx.source)
        self.checkpoint_flags = {}
        self.resume_name = self.names.fresh("qd_resume_point")
        self.builder.emit(f"decl {self.resume_name} i32 (arg {RESUME_PARAM})")

    def end_checkpoints(self):
        """After the body: the return of a launch that ran to its end."""
        if self.checkpoint_sites is not None:
            self.builder.emit(f"return (const i32 {NOT_DONE})")

    def checkpoint_index(self, node):
        """The index of the checkpoint that `node` (a With or a For) is, None where it is no checkpoint."""
        if self.checkpoint_sites is None or not self.ctx.is_kernel or self._in_checkpoint:
            return None
        return self.checkpoint_sites.index_of.get(id(node))

    def is_checkpoint_with(self, node):
        return len(node.items) == 1 and is_checkpoint_call(node.items[0].context_expr, self.visit)

    def translate_checkpoint(self, node, index):
        """Checkpoint `index`: `node` is its With (explicit) or For (implicit); see the file's comment."""
        site = self.checkpoint_sites.sites[index]
        stmts = node.body if site.label is not None else [node]  # an implicit one is the For itself
        flag = self.checkpoint_flag(site.yield_on) if site.yield_on is not None else None
        guard = f"(bin le (var {self.resume_name}) (const i32 {index}))"
        self.builder.open()
        self._in_checkpoint = True
        try:
            self.visit_body(stmts)
        finally:
            self._in_checkpoint = False
            block = self.builder.close()
        for stmt in block:
            self.builder.append(_guarded(stmt, guard))
        if flag is not None:
            self.checkpoint_flags[index] = flag.name
            raised = f"(bin ne (load {flag.name} () ()) (const i32 0))"
            self.builder.emit(f"if (bin and {guard} {raised})", [[Stmt(f"return (const i32 {index})")], []])

    def checkpoint_flag(self, node):
        """The ArrayRef of a yield_on expression: a 0-d qd.i32 ndarray argument (parameter or member)."""
        label = ast.unparse(node)
        try:
            value = self.visit(node)
        except Exception:  # an unknown name or attribute: upstream gives the one message for every case
            value = None
        if not isinstance(value, ArrayRef) or value.path is None:
            raise self.fail(f"qd.checkpoint(yield_on=...) got {label!r} which does not resolve to an ndarray kernel "
                            f"parameter of {self.ctx.source.fn.__name__!r}", node=node,
                            hint="pass a qd.types.ndarray(qd.i32, ndim=0) argument (`flag`, `self.flag` or "
                            "`params.flag`).")
        if value.ndim != 0 or value.element_shape or value.dtype_name != "i32":
            raise self.fail(f"qd.checkpoint(yield_on={label}) needs a 0-d qd.i32 ndarray, but '{label}' is a "
                            f"{value.ndim}-d {value.dtype_name} ndarray", node=node, kind="type")
        return value

    def checkpoint_loop_end(self):
        """At the end of a qd.graph.do_while body: later iterations run every checkpoint again."""
        if self.checkpoint_sites is not None:
            self.builder.emit(f"assign {self.resume_name} (const i32 0)")


# The yield test translate_checkpoint emits: "(bin and (bin le (var RESUME) (const i32 K)) (bin ne (load FLAG () ())
# (const i32 0)))", whose K is the checkpoint's index and FLAG its yield_on array's IR name.
_YIELD_TEST = re.compile(r"\(bin and \(bin le \(var [^()\s]+\) \(const i32 (\d+)\)\) "
                         r"\(bin ne \(load ([^()\s]+) \(\) \(\)\) \(const i32 0\)\)\)")


def flag_arg_ids(ir_text, count):
    """Upstream's checkpoint_yield_on_cpp_arg_ids: per checkpoint (count of them), the position of its yield_on
    array among the IR params of a translation (ir_text, None before one), -1 for one without (or not translated).
    Read from the IR, so a translation the cache gave back (translation_cache.py) answers as a fresh one."""
    ids = [-1] * count
    if ir_text:
        position = {name: k for k, name in enumerate(param_names(ir_text))}
        for index, flag in _YIELD_TEST.findall(ir_text):
            if int(index) < count:
                ids[int(index)] = position.get(flag, -1)
    return ids


def _guarded(stmt, guard):
    """`stmt` run only where `guard` holds: a parallel_for keeps its place with its first extent made 0 (so its
    task is still planned; an `if` around it would make it serial), a decl stays (later statements use the name;
    the frontend's decls here compute extents), anything else goes under an `if`."""
    head = stmt.head
    if head.startswith("parallel_for ("):
        names_end = _sexpr_end(head, len("parallel_for "))
        first = names_end + 2  # past " (" of the extents
        first_end = _sexpr_end(head, first) if head[first] == "(" else min(
            k for k in (head.find(" ", first), head.find(")", first)) if k >= 0)
        extent = head[first:first_end]
        guarded = f"(select {guard} {extent} (bin sub {extent} {extent}))"
        return Stmt(head[:first] + guarded + head[first_end:], stmt.blocks, stmt.loc)
    if head.startswith("decl "):
        return stmt
    return Stmt(f"if {guard}", [[stmt], []], stmt.loc)
