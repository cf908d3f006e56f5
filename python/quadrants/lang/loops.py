# python/quadrants/lang/loops.py: translation of loops: parallel_for, serial for, while, static unrolling.
#
# The `for` loops at the top level of a kernel body become `parallel_for`; every other loop is
# serial. A loop iterates over range(n) / range(a, b), qd.ndrange(...), or an array or field
# (struct-for: one index per outer dimension); qd.static(...) loops are unrolled at compile time.
import ast
import builtins as _py_builtins

from . import builtins as qd_builtins
from .exprs import is_runtime
from .ir_builder import Expr, Stmt
from .values import ArrayRef, LocalVar, StaticBinding, VectorValue
from .vector_ops import describe


class LoopTranslator:
    def visit_For(self, node):
        if node.orelse:
            raise self.fail("'for ... else' is not supported inside kernels")
        iter_node = node.iter
        func = self.visit(iter_node.func) if isinstance(iter_node, ast.Call) else None
        if func is qd_builtins.static:
            self.unroll(node, self.visit(iter_node))
            return
        if func is _py_builtins.range:
            bounds = self.range_bounds(iter_node)
        else:
            bounds = self.iteration_bounds(self.visit(iter_node), iter_node)
        targets = self.loop_targets(node.target, len(bounds))
        if self.top_level and self.ctx.is_kernel:
            self.parallel_loop(node, targets, bounds)
        else:
            self.serial_loop(node, targets, bounds)

    def range_bounds(self, call):
        args, kwargs = self.call_arguments(call)
        if kwargs or not 1 <= len(args) <= 2:
            hint = "use a while loop for steps other than 1." if len(args) == 3 else None
            raise self.fail(f"range() inside kernels takes (end) or (begin, end), but got {len(args)} arguments",
                            hint=hint, node=call)
        args = [self.scalar(a, "a range() bound") for a in args]
        return [(0, args[0])] if len(args) == 1 else [(args[0], args[1])]

    def iteration_bounds(self, value, node):
        if isinstance(value, qd_builtins.NdRange):
            return [(self.scalar(b, "a qd.ndrange() bound"), self.scalar(e, "a qd.ndrange() bound"))
                    for b, e in value.bounds]
        if isinstance(value, ArrayRef):
            if value.static_shape is not None:
                return [(0, extent) for extent in value.static_shape]
            return [(0, Expr(f"(shape {value.name} {k})")) for k in range(value.ndim)]
        raise self.fail(
            f"a kernel can loop over range(), qd.ndrange() or an array, but not over {describe(value)}",
            hint="to unroll a loop over a Python sequence at compile time, write 'for x in qd.static(seq):'.",
            node=node,
        )

    def loop_targets(self, target, ndim):
        """The loop variable names; one name over several dimensions is a grouped index vector."""
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.fail("loop variables must be plain names")
        if len(names) != ndim and len(names) != 1:
            raise self.fail(f"this loop has {ndim} dimension(s) but {len(names)} loop variables",
                            hint=f"write one name per dimension, or a single name for an index vector of {ndim}.")
        return [n.id for n in names]

    def bind_loop_indices(self, targets, index_names, offsets):
        """Binds the Python loop variables to the IR indices plus their offsets (0 for serial loops)."""
        values = []
        for index_name, offset in zip(index_names, offsets):
            index = Expr(f"(var {index_name})")
            values.append(index if _is_zero(offset) else self.ops.bin("add", index, offset))
        if len(targets) == 1 and len(index_names) > 1:
            self.declare(targets[0], VectorValue(values, (len(values),)))
            return
        for target, index_name, value in zip(targets, index_names, values):
            if value.text == f"(var {index_name})":
                self.bind(target, LocalVar(index_name, self.parallel_depth))
            else:
                self.declare(target, value)

    def index_names(self, targets, offsets):
        if len(targets) == len(offsets):
            return [self.names.fresh(t if _is_zero(offset) else "_" + t) for t, offset in zip(targets, offsets)]
        return [self.names.fresh(f"_{targets[0]}{k}") for k in range(len(offsets))]

    def parallel_loop(self, node, targets, bounds):
        """One parallel_for over the product of the bounds; it iterates from 0, the begins are added back."""
        loc = self.builder.loc
        serialize, block_dim = self.pending_loop_config or (False, 0)
        self.pending_loop_config = None
        if serialize and _breaks_directly(node.body):
            self.serial_loop(node, targets, bounds)  # a serial `for` can break; a parallel_for cannot
            return
        extents = " ".join(self.ops.text(end if _is_zero(begin) else self.ops.bin("sub", end, begin))
                           for begin, end in bounds)
        offsets = [begin for begin, _ in bounds]
        index_names = self.index_names(targets, offsets)
        block = self.loop_body(node, targets, index_names, offsets, "parallel")
        head = (f"parallel_for ({' '.join(index_names)}) ({extents}) "
                f"(config (block_dim {block_dim}) (serialize {int(serialize)}))")
        self.builder.emit(head, [block], loc=loc)

    def serial_loop(self, node, targets, bounds):
        """Nested serial `for`s, outermost dimension first; the loop indices are the loop variables."""
        loc = self.builder.loc
        self.pending_loop_config = None
        ranges = [(self.ops.text(begin), self.ops.text(end)) for begin, end in bounds]
        offsets = [0] * len(bounds)
        index_names = self.index_names(targets, offsets)
        block = self.loop_body(node, targets, index_names, offsets, "serial")
        for index_name, (begin, end) in reversed(list(zip(index_names, ranges))):
            block = [Stmt(f"for {index_name} {begin} {end}", [block], loc)]
        self.builder.append(block[0])

    def loop_body(self, node, targets, index_names, offsets, kind):
        saved = (self.top_level, self.builder.loc, self.parallel_depth)
        self.top_level = False
        self.parallel_depth += kind == "parallel"
        self.loops.append(kind)
        self.builder.open()
        self.push_scope()
        try:
            self.bind_loop_indices(targets, index_names, offsets)
            self.visit_body(node.body)
        finally:
            self.pop_scope()
            self.loops.pop()
            self.top_level, self.builder.loc, self.parallel_depth = saved
        return self.builder.close()

    def unroll(self, node, iterable):
        """`for x in qd.static(seq)`: the body is translated once per item, x bound at compile time."""
        try:
            items = list(iterable)
        except TypeError:
            raise self.fail(f"qd.static() in a for loop needs an iterable, but got {describe(iterable)}",
                            kind="type") from None
        self.loops.append("static")
        try:
            self.unroll_items(node, items)
        finally:
            self.loops.pop()

    def unroll_items(self, node, items):
        for k, item in enumerate(items):
            self.push_scope()
            try:
                self.bind_static_target(node.target, item)
                self.visit_body(node.body)
            finally:
                self.pop_scope()
            rest = items[k + 1 :]
            if rest and self.ctx.done_flag and any(isinstance(n, ast.Return) for n in ast.walk(node)):
                loc = self.builder.loc
                self.builder.open()
                self.unroll_items(node, rest)
                block = self.builder.close()
                self.builder.emit(f"if (bin eq (var {self.ctx.done_flag}) (const int 0))", [block, []], loc=loc)
                return

    def bind_static_target(self, target, item):
        if isinstance(target, ast.Name):
            self.bind(target.id, StaticBinding(self.capture(item)))
            return
        if isinstance(target, ast.Tuple) and all(isinstance(n, ast.Name) for n in target.elts):
            values = list(item)
            if len(values) != len(target.elts):
                raise self.fail(f"cannot unpack {len(values)} values into {len(target.elts)} loop variables",
                                kind="type")
            for name_node, value in zip(target.elts, values):
                self.bind(name_node.id, StaticBinding(self.capture(value)))
            return
        raise self.fail("loop variables must be plain names")

    def visit_While(self, node):
        if node.orelse:
            raise self.fail("'while ... else' is not supported inside kernels")
        loc = self.builder.loc
        # A condition that emits statements (an inlined func, an atomic) must run on every iteration,
        # so it moves into the body: while 1: <statements>; if not cond: break; <body>.
        self.builder.open()
        cond = self.visit(node.test)
        if not is_runtime(cond):
            cond = int(bool(cond))
        cond_text = self.ops.text(self.scalar(cond, "a while condition"))
        prelude = self.builder.close()
        saved_top = self.top_level
        self.loops.append("serial")
        try:
            body = self.translate_block(node.body)
        finally:
            self.loops.pop()
            self.top_level = saved_top
        if not prelude:
            self.builder.emit(f"while {cond_text}", [body], loc=loc)
            return
        self.builder.open()
        self.builder.emit("break", loc=loc)
        exit_block = self.builder.close()
        check = [Stmt(f"if (un not {cond_text})", [exit_block, []], loc)]
        self.builder.emit("while (const int 1)", [prelude + check + body], loc=loc)

    def visit_Break(self, node):
        self.check_loop_jump("break")
        self.builder.emit("break")

    def visit_Continue(self, node):
        self.check_loop_jump("continue")
        self.builder.emit("continue")

    def check_loop_jump(self, what):
        if not self.loops:
            raise self.fail(f"'{what}' outside a loop")
        if self.loops[-1] == "static":
            raise self.fail(f"'{what}' inside a qd.static() loop is not supported",
                            hint="use a runtime loop, or an if around the rest of the body.")
        if self.loops[-1] == "parallel" and what == "break":
            raise self.fail("'break' is not allowed in a parallel (outermost) loop",
                            hint="add qd.loop_config(serialize=True) before the loop to run it serially.")


def _is_zero(offset):
    return not is_runtime(offset) and offset == 0


def _breaks_directly(stmts):
    """Whether a loop body breaks out of this loop (a break not nested in an inner loop)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.While)):
            continue
        for field in ("body", "orelse"):
            if _breaks_directly(getattr(stmt, field, [])):
                return True
    return False
