# python/quadrants/frontend/stream_parallel.py: `with qd.stream_parallel():` blocks at a kernel's top level.
#
# Requires: the kernel's decorator options in Translator.kernel_options (graph=True refuses the blocks).
# Ensures: each block's body is translated in place, in source order, at the kernel's top level, so its loops stay
#   the kernel's parallel loops and the blocks run one after another on every backend. Upstream Quadrants runs each
#   block on a CUDA stream of its own; the blocks promise to be independent, so the serial order gives the same
#   results (only without the overlap). All of a kernel's work is done when the launch is.
# Rejects (upstream's words, which its tests match): a block in a @qd.func, in a graph=True kernel, nested in
#   another block or below the top level; a kernel whose top level mixes blocks with other statements; a block
#   that is not a call, or is given arguments.
import ast
import contextlib


@contextlib.contextmanager
def stream_parallel():
    """`with qd.stream_parallel():` in a @qd.kernel: the block's loops may run concurrently with the other blocks'
    (see the module's head). Outside kernels it does nothing, as upstream's."""
    yield


class StreamParallelTranslator:
    """The Translator's `with qd.stream_parallel():` blocks; graph_sections.visit_With hands them here."""

    def stream_parallel_block(self, node):
        expr = node.items[0].context_expr
        if not isinstance(expr, ast.Call):
            raise self.fail("'with qd.stream_parallel' requires a call expression: write 'with "
                            "qd.stream_parallel():'", node=expr)
        if expr.args or expr.keywords:
            raise self.fail("qd.stream_parallel() takes no arguments", node=expr)
        if not self.ctx.is_kernel:
            raise self.fail("qd.stream_parallel() can only be used inside @qd.kernel, not @qd.func",
                            hint="move the with block into the kernel; its loops may call @qd.func functions.")
        if self.kernel_options.get("graph") or self.kernel_options.get("gpu_graph"):
            raise self.fail("qd.stream_parallel() is not compatible with graph=True kernels",
                            hint="use qd.graph.parallel_context() and qd.graph.parallel() in graph kernels.")
        if self.graph_state == "stream_parallel":
            raise self.fail("qd.stream_parallel() blocks cannot be nested",
                            hint="make the inner block's loops part of the outer block.")
        if not self.top_level or self.loops or node not in self.ctx.source.tree.body:
            raise self.fail("qd.stream_parallel() blocks must be top-level statements of the kernel")
        self.check_stream_parallel_top_level()
        saved = self.graph_state
        self.graph_state = "stream_parallel"
        self.push_scope()
        try:
            self.visit_body(node.body)
        finally:
            self.pop_scope()
            self.graph_state = saved

    def check_stream_parallel_top_level(self):
        """A kernel's top level is all stream_parallel blocks or none (a docstring and `pass` aside)."""
        for k, stmt in enumerate(self.ctx.source.tree.body):
            if isinstance(stmt, ast.Pass) or (k == 0 and isinstance(stmt, ast.Expr)
                                              and isinstance(stmt.value, ast.Constant)
                                              and isinstance(stmt.value.value, str)):
                continue
            if isinstance(stmt, ast.With) and len(stmt.items) == 1 and self.calls(stmt.items[0].context_expr,
                                                                                  stream_parallel):
                continue
            raise self.fail("When qd.stream_parallel() is used, all top-level statements of the kernel must be "
                            "'with qd.stream_parallel():' blocks", node=stmt,
                            hint="move this statement into a block, or into another kernel.")
