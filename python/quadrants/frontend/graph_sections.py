# python/quadrants/frontend/graph_sections.py: `with qd.graph.parallel_context():` regions and their sections in kernels.
#
# Requires: the kernel's decorator options in Translator.kernel_options (graph=True to use a region).
# Ensures: each `with qd.graph.parallel():` section's body is translated in place, in source order, so the
#   sections run one after another on every backend. Upstream Quadrants may overlap them on CUDA; the program
#   promises they are independent, which makes the serial order give the same results. Nothing marks the
#   sections in the IR: with no concurrency to express, the region is its sections' statements.
# Rejects: `with` of anything else; a region outside a graph kernel, in a @qd.func, in a checkpoints kernel
#   or in a section; a region holding anything but sections (optionally under `if qd.static(...)` or
#   `for ... in qd.static(...)`); a section outside a region, nested in a section, given arguments, or
#   holding a return, qd.graph.do_while or qd.checkpoint. The wording is upstream's, which its tests match.
import ast

from quadrants.frontend import builtins as qd_builtins, checkpoint as checkpoint_module, graph, graph_spelling
from quadrants.frontend.dotted_names import dotted_parts
from quadrants.frontend.stream_parallel import stream_parallel

_CONSTRUCTS = ((graph.parallel_context, "parallel_context"), (graph.parallel, "parallel"),
               (stream_parallel, "stream_parallel"))


class GraphSectionTranslator:
    """The Translator's `with` statements. Its state, Translator.graph_state, is None outside regions, "region"
    in a region's body and "section" in a section's body (inlined funcs included)."""

    def visit_With(self, node):
        if self.is_checkpoint(node):
            index = self.checkpoint_index(node)  # checkpoint_translate.py
            if index is None:
                raise self.checkpoint_error()
            return self.translate_checkpoint(node, index)
        name = self.graph_construct(node)
        if name == "stream_parallel":
            return self.stream_parallel_block(node)  # stream_parallel.py
        if graph_spelling.warn_if_deprecated(node.items[0].context_expr.func, name, self.ctx.source.filename,
                                             node.lineno):
            self.reads.uncacheable("a deprecation warning")  # a cached translation would not warn again
        if name == "parallel_context":
            self.graph_region(node)
        else:
            self.graph_section(node)

    def is_checkpoint(self, node):
        expr = node.items[0].context_expr if len(node.items) == 1 else None
        return expr is not None and self.calls(expr, checkpoint_module.checkpoint)

    def checkpoint_error(self):
        """qd.checkpoint where it is no checkpoint: upstream's message where checkpoints=True is missing; else it
        is away from the kernel's top level and the qd.graph.do_while bodies there (checkpoint_scan.py)."""
        if not self.ctx.is_kernel:
            return self.fail("qd.checkpoint() can only be used inside @qd.kernel, not @qd.func")
        if not self.kernel_options.get("checkpoints"):
            return self.fail("qd.checkpoint(...) requires @qd.kernel(graph=True, checkpoints=True)",
                             hint="add checkpoints=True to the kernel's decorator.")
        return self.fail("qd.checkpoint() can only be used at the kernel top level or directly inside a "
                         "qd.graph.do_while() body", hint="move the with statement out of the enclosing block.")

    def graph_construct(self, node):
        """'parallel_context', 'parallel' or 'stream_parallel' for the with statement's context manager; anything
        else fails."""
        supported = ("'with' in Quadrants kernels only supports qd.stream_parallel(), qd.checkpoint(), "
                     "qd.graph.parallel_context(), or qd.graph.parallel()")
        if len(node.items) != 1:
            raise self.fail("'with' inside a kernel takes a single context manager", hint="nest the with statements.")
        item = node.items[0]
        if item.optional_vars is not None:
            raise self.fail("'with ... as ...' is not supported inside kernels", hint=supported + ".")
        expr = item.context_expr
        target = self.visit(expr.func if isinstance(expr, ast.Call) else expr)
        name = next((name for construct, name in _CONSTRUCTS if target is construct), None)
        if name == "stream_parallel":
            return name  # its own checks: stream_parallel.py
        if name is None:
            raise self.fail(f"Unsupported 'with {ast.unparse(expr)}' inside a kernel", node=expr,
                            hint=supported + "; move other context managers out of the kernel.")
        if not isinstance(expr, ast.Call):
            raise self.fail(f"qd.graph.{name} must be called: write 'with qd.graph.{name}():'", node=expr)
        if expr.args or expr.keywords:
            raise self.fail(f"qd.graph.{name}() takes no arguments", node=expr)
        return name

    def graph_region(self, node):
        if not self.ctx.is_kernel:
            raise self.fail("qd.graph.parallel_context() can only be used inside @qd.kernel, not @qd.func",
                            hint="move the region into the kernel; its sections may call @qd.func functions.")
        options = self.kernel_options
        if not (options.get("graph") or options.get("gpu_graph")):
            raise self.fail("qd.graph.parallel_context() requires @qd.kernel(graph=True)",
                            hint="decorate the kernel with @qd.kernel(graph=True).")
        if options.get("checkpoints"):
            raise self.fail("qd.graph.parallel_context() is not supported in a @qd.kernel(graph=True, "
                            "checkpoints=True) kernel, as in upstream Quadrants, where a region takes no part in "
                            "checkpoint/resume", hint="remove checkpoints=True, or write the work without a region.")
        if self.graph_state == "section":
            raise self.fail("qd.graph.parallel_context() cannot appear inside a qd.graph.parallel() section",
                            hint="regions cannot be nested; end the enclosing region first.")
        self.check_region_body(node.body)
        self.translate_graph_body(node.body, "region")

    def graph_section(self, node):
        if self.graph_state == "section":
            raise self.fail("qd.graph.parallel() sections cannot be nested inside one another",
                            hint="make the inner section's statements part of the outer section.")
        if self.graph_state != "region":
            raise self.fail("qd.graph.parallel() can only be used directly inside a qd.graph.parallel_context() "
                            "region", hint="wrap the sections in 'with qd.graph.parallel_context():'.")
        self.translate_graph_body(node.body, "section")

    def translate_graph_body(self, stmts, state):
        """A with statement's body in place: a new Python-level scope (as upstream), the same IR block, and the
        same top_level, so a section's `for` at the kernel's top level stays a parallel loop."""
        saved = self.graph_state
        self.graph_state = state
        self.push_scope()
        try:
            self.visit_body(stmts)
        finally:
            self.pop_scope()
            self.graph_state = saved

    def check_region_body(self, stmts):
        """A region holds only sections, optionally under compile-time ifs and loops, which unroll into more
        sections; other work would fall between the sections, so it is refused. Checked before any of the
        region is translated, both branches of a static if included."""
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Pass) or (k == 0 and _is_docstring(stmt)):
                continue
            if isinstance(stmt, ast.With) and len(stmt.items) == 1 and self.calls(stmt.items[0].context_expr,
                                                                                  graph.parallel):
                self.check_section_body(stmt.body)
                continue
            if isinstance(stmt, ast.If) and self.calls(stmt.test, qd_builtins.static):
                self.check_region_body(stmt.body)
                self.check_region_body(stmt.orelse)
                continue
            if isinstance(stmt, ast.For) and not stmt.orelse and self.calls(stmt.iter, qd_builtins.static):
                self.check_region_body(stmt.body)
                continue
            raise self.fail("A qd.graph.parallel_context() region may contain only 'with qd.graph.parallel():' "
                            "blocks (optionally inside 'if qd.static(...)' or 'for ... in qd.static(...)'); this "
                            f"{type(stmt).__name__} statement is neither", node=stmt,
                            hint="move other work before or after the region, or into a section.")

    def check_section_body(self, stmts):
        """A section is straight-line work: no construct that would give it structure of its own. Checked by
        spelling, at any depth of the section's own statements (a called func's body is not searched)."""
        for stmt in stmts:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Return):
                    raise self.fail("A qd.graph.parallel() section cannot return", node=node,
                                    hint="graph kernels return nothing; store results in an array.")
                if isinstance(node, ast.While) and isinstance(node.test, ast.Call) and graph_spelling.matches(
                        node.test.func, "do_while"):
                    raise self.fail("qd.graph.do_while() cannot appear inside a qd.graph.parallel() section; a "
                                    "section body must be straight-line task work", node=node)
                if isinstance(node, ast.With):
                    self.check_nested_with(node)

    def check_nested_with(self, node):
        for item in node.items:
            func = item.context_expr.func if isinstance(item.context_expr, ast.Call) else None
            if func is None:
                continue
            if (isinstance(func, ast.Attribute) and func.attr == "checkpoint") or (
                    isinstance(func, ast.Name) and func.id == "checkpoint"):
                raise self.fail("qd.checkpoint() cannot appear inside a qd.graph.parallel() section; a section "
                                "body must be straight-line task work", node=node)
            if graph_spelling.matches(func, "parallel_context"):
                raise self.fail("qd.graph.parallel_context() cannot appear inside a qd.graph.parallel() section",
                                node=node, hint="regions cannot be nested.")
            if graph_spelling.matches(func, "parallel"):
                raise self.fail("qd.graph.parallel() sections cannot be nested inside one another", node=node,
                                hint="make the inner section's statements part of the outer section.")

    def calls(self, node, target):
        """Whether `node` calls `target` through a plain dotted name (`qd.static(...)`, `qd.graph.parallel()`),
        resolved as the kernel resolves names; other callees are not evaluated, so checking has no effects."""
        if not isinstance(node, ast.Call):
            return False
        return dotted_parts(node.func) is not None and self.visit(node.func) is target


def _is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)

