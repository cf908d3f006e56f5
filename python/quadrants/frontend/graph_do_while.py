# python/quadrants/frontend/graph_do_while.py: `while qd.graph.do_while(flag):` in graph kernels.
#
# Requires: the kernel's decorator options in Translator.kernel_options (graph=True to use the loop).
# Ensures: the loop becomes `(graph_do_while ARRAY (STMT...))` (docs/IR.md): its body is translated in place as
#   top-level code, so its `for` loops stay parallel, and the host side loops around them while the flag's
#   element is nonzero (the CPU entry; the CUDA launcher reads the flag back after each iteration).
# Rejects: the loop outside a graph kernel or away from the kernel's top level (in a loop, an if, a section), a
#   flag that is not a 0-d qd.i32 ndarray argument, `while ... else`. Wording is upstream's, which its tests match.
import ast

from quadrants.frontend import graph, graph_spelling
from quadrants.frontend.values import ArrayRef


class GraphDoWhileTranslator:
    def is_graph_do_while(self, node):
        """Whether a while statement is `while qd.graph.do_while(...)` (either spelling, resolved as the kernel
        resolves names, so a user's own `do_while` is an ordinary call)."""
        test = node.test
        if not (isinstance(test, ast.Call) and graph_spelling.matches(test.func, "do_while")):
            return False
        return self.visit(test.func) is graph.do_while

    def graph_do_while(self, node):
        func = node.test.func
        if graph_spelling.warn_if_deprecated(func, "do_while", self.ctx.source.filename, node.lineno):
            self.reads.uncacheable("a deprecation warning")  # a cached translation would not warn again
        options = self.kernel_options
        if not (options.get("graph") or options.get("gpu_graph")):
            raise self.fail("qd.graph.do_while() requires @qd.kernel(graph=True)",
                            hint="decorate the kernel with @qd.kernel(graph=True).")
        if node.orelse:
            raise self.fail("'while qd.graph.do_while(...): ... else' is not supported")
        if not self.top_level or any(loop in ("parallel", "serial") for loop in self.loops):
            raise self.fail("qd.graph.do_while() can only be used at the kernel top level or directly inside another "
                            "qd.graph.do_while() body", hint="move the loop out of the enclosing for/while/if.")
        cond = self.graph_do_while_flag(node.test)
        loc = self.builder.loc
        self.builder.open()
        self.push_scope()
        try:
            self.visit_body(node.body)
            self.checkpoint_loop_end()  # checkpoint_translate.py: only a resumed launch's first iteration skips
        finally:
            self.pop_scope()
        body = self.builder.close()
        self.builder.emit(f"graph_do_while {cond.name}", [body], loc=loc)

    def graph_do_while_flag(self, call):
        """The 0-d i32 ndarray argument the loop's condition reads: a parameter, or a dataclass or data_oriented
        member (a leaf), never a field or an expression."""
        if len(call.args) != 1 or call.keywords:
            raise self.fail("qd.graph.do_while() takes exactly one argument, the 0-d qd.i32 ndarray that keeps the "
                            "loop going while it is nonzero", node=call)
        arg = call.args[0]
        label = ast.unparse(arg)
        not_param = (f"qd.graph.do_while({label}): '{label}' does not resolve to an ndarray kernel parameter")
        if not isinstance(arg, (ast.Name, ast.Attribute)):
            raise self.fail(not_param, node=arg, hint="pass a qd.types.ndarray(qd.i32, ndim=0) argument by name.")
        try:
            value = self.visit(arg)
        except Exception:  # an unknown name or attribute: the one message upstream gives for both
            value = None
        if not isinstance(value, ArrayRef) or value.path is None:
            raise self.fail(not_param, node=arg, hint="pass a qd.types.ndarray(qd.i32, ndim=0) kernel argument "
                            "(a field cannot be the condition).")
        if value.ndim != 0 or value.element_shape or value.dtype_name != "i32":
            raise self.fail(f"qd.graph.do_while({label}) needs a 0-d qd.i32 ndarray, but '{label}' is a "
                            f"{value.ndim}-d {value.dtype_name} ndarray", node=arg, kind="type")
        return value
