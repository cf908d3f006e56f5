# python/quadrants/frontend/loops.py: translation of loops: parallel_for, serial for, while, static unrolling.
#
# The `for` loops at the top level of a kernel body become `parallel_for`; every other loop is
# serial. A loop iterates over range(n) / range(a, b) (no step, as upstream), qd.ndrange(...), or an
# array or field (struct-for: one loop variable per dimension), each optionally qd.grouped(...) into
# one index vector; qd.static(...) loops are unrolled at compile time.
import ast
import builtins as _py_builtins
import warnings

from quadrants.data.field_order import loop_axes
from quadrants.frontend import builtins as qd_builtins
from quadrants.frontend.ir_builder import Expr, Stmt, name_clause
from quadrants.frontend.loop_space import LoopSpace
from quadrants.frontend.sparse_access import FieldRef
from quadrants.frontend.sparse_loops import sparse_iteration_space
from quadrants.frontend.struct_values import StructField
from quadrants.frontend.values import ArrayRef, LocalVar, StaticBinding, VectorValue, is_runtime
from quadrants.frontend.vector_ops import describe


class LoopTranslator:
    def visit_For(self, node):
        index = self.checkpoint_index(node)  # a checkpoints=True kernel's implicit checkpoint (checkpoint_translate.py)
        if index is not None:
            return self.translate_checkpoint(node, index)
        if node.orelse:
            raise self.fail("'for ... else' is not supported inside kernels")
        iter_node = self.chosen_iterable(node.iter)
        func = self.visit(iter_node.func) if isinstance(iter_node, ast.Call) else None
        if func is qd_builtins.static:
            inner = iter_node.args[0] if len(iter_node.args) == 1 else None
            if isinstance(inner, ast.Call) and self.visit(inner.func) is qd_builtins.static:
                raise self.fail("'qd.static' cannot be nested", node=inner, hint="write 'qd.static(...)' once.")
            self.unroll(node, self.visit(iter_node))
            return
        loop_name = self.take_loop_name(node)
        if func is _py_builtins.range:
            self.check_range_differentiable(node)
            space = self.range_space(iter_node, node)
            checks_names = True
        else:
            iterable = self.visit(iter_node)
            space = self.iteration_space(iterable, iter_node)
            inner = iterable.container if isinstance(iterable, qd_builtins.Grouped) else iterable
            checks_names = not isinstance(inner, qd_builtins.NdRange)  # upstream lets ndrange loops shadow
        if func is not _py_builtins.range and isinstance(iterable, qd_builtins.NdRange):
            count = len(node.target.elts) if isinstance(node.target, ast.Tuple) else 1
            if count != len(iterable.bounds):  # one name for an index vector needs qd.grouped(), as upstream
                raise self.fail("Ndrange for loop with number of the loop variables not equal to the dimension of "
                                "the ndrange is not supported", node=node.target,
                                hint=f"write {len(iterable.bounds)} loop variables, or 'for I in "
                                "qd.grouped(qd.ndrange(...)):' for an index vector.")
        targets = self.loop_targets(node.target, space)
        if checks_names:
            self.check_fresh_loop_targets(targets, node.target)
        if self.top_level:  # the kernel's top level, or a func's inlined there (enter_function)
            self.parallel_loop(node, targets, space, loop_name)
        else:
            self.serial_loop(node, targets, space)

    def take_loop_name(self, node):
        """qd.loop_config(name=...) names the task of a top-level loop (the parallel_for's `(name ...)`, shown in IR
        dumps and in CUDA function names), as upstream names its GPU kernel; on a loop nested in another for-loop
        the name is dropped, and upstream warns so (a while loop or qd.static unrolling does not count)."""
        name, self.pending_loop_name = self.pending_loop_name, None
        if name is None or self.for_loop_depth == 0:
            return name
        self.reads.uncacheable("a warning")  # a cached translation would not warn again
        warnings.warn_explicit(
            f"qd.loop_config(name={name!r}) is on a for-loop nested inside another for-loop, so the name is ignored: "
            "only top-level loops (of the kernel, a qd.checkpoint or a qd.graph_do_while) become separately named GPU "
            "kernels. Move the loop to the top level, or unroll the outer loop with qd.static(range(...)).",
            UserWarning, self.ctx.source.filename, node.lineno)
        return None

    def check_range_differentiable(self, node):
        """Upstream's rule for reverse mode without AD stacks (qd.init(ad_stack_experimental_enabled=False)): a
        range() loop nested in a runtime loop, directly or in a func called there, carries values its adjoint could
        only replay from a stack, so the adjoint's translation (kernel option no_ad_stack) rejects it."""
        if self.kernel_options.get("no_ad_stack") and self.runtime_loop_depth > 0:
            raise self.fail("Cannot use non static range in Backwards mode: this range() loop is nested in another "
                            "loop, and reverse-mode autodiff needs AD stacks to differentiate it",
                            hint="call qd.init(ad_stack_experimental_enabled=True), or unroll the loop with "
                            "qd.static(range(...)).", node=node)

    def check_fresh_loop_targets(self, targets, node):
        """As upstream: a range or struct-for loop variable must be a new name, not a variable already in scope."""
        for name in targets:
            if self.lookup_binding(name) is not None:
                raise self.fail(f"Variable '{name}' is already declared in the outer scope and cannot be used as loop "
                                "variable", node=node, hint="give the loop variable a new name.")

    def chosen_iterable(self, iter_node):
        """`A if qd.static(c) else B` as a loop's iterable is A or B itself, so `range(n) if qd.static(c) else
        qd.static(range(3))` loops as the chosen branch would (a runtime range, or an unrolled one)."""
        while isinstance(iter_node, ast.IfExp):
            test = self.visit(iter_node.test)
            if is_runtime(test):
                raise self.fail("the condition of a conditional loop iterable must be known at compile time",
                                node=iter_node.test, hint="wrap it in qd.static(...).")
            iter_node = iter_node.body if test else iter_node.orelse
        return iter_node

    def range_space(self, call, loop):
        """range(end) or range(begin, end); upstream's kernels take no step (unroll a stepped range with
        qd.static(range(...)), or loop over the count and compute the value)."""
        args, kwargs = self.call_arguments(call)
        if kwargs:
            raise self.fail(f"range() inside kernels takes positional (end) or (begin, end), but got the keyword "
                            f"argument(s) {', '.join(sorted(kwargs))}", node=call)
        if not 1 <= len(args) <= 2:  # upstream's wording, on the whole for-statement as upstream shows it
            raise self.fail(f"Range should have 1 or 2 arguments, found {len(args)}", node=loop,
                            hint="a kernel's range() takes (end) or (begin, end); for a step write "
                            "'for k in range(count): i = begin + k * step', or unroll with qd.static(range(...)).")
        args = [self.scalar(a, "a range() bound") for a in args]
        return LoopSpace([(0, args[0])] if len(args) == 1 else [(args[0], args[1])])

    def iteration_space(self, value, node):
        grouped = isinstance(value, qd_builtins.Grouped)
        if grouped:
            value = value.container
        if isinstance(value, qd_builtins.NdRange):
            return LoopSpace([(self.scalar(b, "a qd.ndrange() bound"), self.scalar(e, "a qd.ndrange() bound"))
                              for b, e in value.bounds], grouped=grouped, axes=value.axes)
        space = sparse_iteration_space(self, value, grouped)  # SNodes, offsets, sparse fields (sparse_loops.py)
        if space is None:
            space = self.dense_space(value, grouped, node)
        if isinstance(value, FieldRef) and space.blocked is None:
            space.axes = loop_axes(value.field)  # order=, or a column-major SNode path: loops follow memory
        return space

    def dense_space(self, value, grouped, node):
        if isinstance(value, StructField):  # its members' shared shape (struct_values.py)
            return LoopSpace([(0, extent) for extent in value.shape], grouped=grouped)
        if isinstance(value, ArrayRef):
            if value.static_shape is not None:
                return LoopSpace([(0, extent) for extent in value.static_shape], grouped=grouped)
            return LoopSpace([(0, Expr(f"(shape {value.name} {k})")) for k in range(value.ndim)], grouped=grouped)
        raise self.fail(
            f"a kernel can loop over range(), qd.ndrange(), qd.grouped() or an array, but not over {describe(value)}",
            hint="to unroll a loop over a Python sequence at compile time, write 'for x in qd.static(seq):'.",
            node=node,
        )

    def loop_targets(self, target, space):
        """The loop variable names: one per dimension, or one index vector over qd.grouped(...)."""
        ndim = len(space.bounds)
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.fail("loop variables must be plain names")
        if space.zero_dim and not space.grouped:
            raise self.fail("a loop over a 0-d field or ndarray has no index to bind",
                            hint="write 'for I in qd.grouped(x):' (I is the empty index), or use x[None] directly.")
        if space.grouped and len(names) != 1:
            raise self.fail(f"a loop over qd.grouped(...) has one loop variable, the index vector, but got "
                            f"{len(names)}", hint="write 'for I in qd.grouped(x):' and index with I[0], I[1] ...")
        if not space.grouped and len(names) != ndim:  # upstream's rule and wording: one name per dimension
            raise self.fail(f"Number of struct-for indices does not match loop variable dimensionality "
                            f"({len(names)} != {ndim}): this loop binds {len(names)} loop variable(s) but iterates "
                            f"{ndim} dimension(s)", node=target,
                            hint=f'write {ndim} loop variables, or use "for I in qd.grouped(x)" to group all '
                            "indices into a single vector I.")
        return [n.id for n in names]

    def bind_loop_indices(self, targets, index_names, offsets, space, reassigned=()):
        """Binds the Python loop variables to the IR indices plus their offsets (0 for serial loops). A loop
        variable the body assigns to (`i = qd.cast(i, qd.i32)`, which upstream accepts) is a copy: the IR's
        loop indices are read-only."""
        if space.zero_dim:
            self.declare(targets[0], VectorValue([], (0,)))
            return
        values = []
        for index_name, offset in zip(index_names, offsets):
            index = Expr(f"(var {index_name})")
            values.append(index if _is_zero(offset) else self.ops.bin("add", index, offset))
        if len(targets) == 1 and (len(index_names) > 1 or space.grouped):
            self.declare(targets[0], VectorValue(values, (len(values),)))
            return
        for target, index_name, value in zip(targets, index_names, values):
            if value.text == f"(var {index_name})" and target not in reassigned:
                self.bind(target, LocalVar(index_name, self.parallel_depth))
            else:
                self.declare(target, value)

    def index_names(self, targets, offsets, space):
        if len(targets) == len(offsets) and not space.grouped:
            return [self.names.fresh(t if _is_zero(offset) else "_" + t) for t, offset in zip(targets, offsets)]
        return [self.names.fresh(f"_{targets[0]}{k}") for k in range(len(offsets))]

    def parallel_loop(self, node, targets, space, loop_name=None):
        """One parallel_for over the product of the bounds; it iterates from 0, the begins are added back."""
        if space.blocked is not None and space.blocked(self, node, targets, loop_name):
            return  # a struct-for over sparse blocks or lists: parallel over them (sparse_loops.py)
        loc = self.builder.loc
        serialize, block_dim = self.pending_loop_config or (False, 0)
        self.pending_loop_config = None
        if serialize and _breaks_directly(node.body):
            # A serial `for` can break; a parallel_for cannot. It runs in the serial task around it, which has no
            # name of its own, so a loop_name is not shown for it.
            self.serial_loop(node, targets, space)
            return
        extents = [self.ops.text(end if _is_zero(begin) else self.extent(begin, end)) for begin, end in space.bounds]
        offsets = [begin for begin, _ in space.bounds]
        index_names = self.index_names(targets, offsets, space)
        random_scope = self.open_random_scope(index_names)
        block = self.close_random_scope(random_scope, self.loop_body(node, targets, index_names, offsets, space,
                                                                     "parallel"))
        order = space.axes or range(len(index_names))  # the IR nests its dimensions in the order they are listed
        head = (f"parallel_for ({' '.join(index_names[d] for d in order)}) ({' '.join(extents[d] for d in order)}) "
                f"(config (block_dim {block_dim}) (serialize {int(serialize)}){name_clause(loop_name)})")
        self.builder.emit(head, [block], loc=loc)

    def extent(self, begin, end):
        """How many indices [begin, end) has, as max(end, begin) - begin: an end below the begin gives an empty
        loop, never a difference that wraps around to a large positive count (range(10, -2**31 + 5) in i32), so
        begin + index stays below end in the body and cannot overflow (src/codegen/int_ranges.h relies on it)."""
        return self.ops.bin("sub", self.ops.bin("max", end, begin), begin)

    def serial_loop(self, node, targets, space):
        """Nested serial `for`s, outermost dimension first; the loop indices are the loop variables."""
        loc = self.builder.loc
        self.pending_loop_config = None
        ranges = [(self.ops.text(begin), self.ops.text(end)) for begin, end in space.bounds]
        offsets = [0] * len(space.bounds)
        index_names = self.index_names(targets, offsets, space)
        block = self.loop_body(node, targets, index_names, offsets, space, "serial")
        for d in reversed(space.axes or range(len(index_names))):  # outermost first, as ndrange(axes=) orders them
            block = [Stmt(f"for {index_names[d]} {ranges[d][0]} {ranges[d][1]}", [block], loc)]
        self.builder.append(block[0])

    def loop_body(self, node, targets, index_names, offsets, space, kind):
        saved = (self.top_level, self.builder.loc, self.parallel_depth)
        self.top_level = False
        self.parallel_depth += kind == "parallel"
        self.runtime_loop_depth += 1
        self.for_loop_depth += 1
        self.loops.append(kind)
        self.builder.open()
        self.push_scope()
        try:
            self.bind_loop_indices(targets, index_names, offsets, space, _assigned_names(node.body))
            if space.guard is not None:
                space.guard(self, index_names, kind)
            self.visit_body(node.body)
        finally:
            self.pop_scope()
            self.loops.pop()
            self.runtime_loop_depth -= 1
            self.for_loop_depth -= 1
            self.top_level, self.builder.loc, self.parallel_depth = saved
        return self.builder.close()

    def unroll(self, node, iterable):
        """`for x in qd.static(seq)`: the body is translated once per item, x bound at compile time."""
        self.reads.operation(list, (iterable,))
        try:
            items = list(iterable)
        except TypeError:
            raise self.fail(f"qd.static() in a for loop needs an iterable, but got {describe(iterable)}",
                            kind="type") from None
        self.loops.append(StaticLoop())
        try:
            self.unroll_items(node, items)
        finally:
            self.loops.pop()

    def unroll_items(self, node, items):
        loop = self.loops[-1]
        for k, item in enumerate(items):
            self.push_scope()
            try:
                self.bind_static_target(node.target, item)
                self.visit_body(node.body)  # stops at a break or continue (visit_body)
            finally:
                self.pop_scope()
            jump, loop.jump = loop.jump, None
            if jump == "break":
                return
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
            self.reads.operation(list, (item,))
            values = list(item)
            if len(values) != len(target.elts):
                raise self.fail(f"cannot unpack {len(values)} values into {len(target.elts)} loop variables",
                                kind="type")
            for name_node, value in zip(target.elts, values):
                self.bind(name_node.id, StaticBinding(self.capture(value)))
            return
        raise self.fail("loop variables must be plain names")

    def visit_While(self, node):
        if self.is_graph_do_while(node):
            return self.graph_do_while(node)  # graph_do_while.py
        if node.orelse:
            raise self.fail("'while ... else' is not supported inside kernels")
        loc = self.builder.loc
        # A condition that emits statements (an inlined func, an atomic) must run on every iteration,
        # so it moves into the body: while 1: <statements>; if not cond: break; <body>.
        self.builder.open()
        saved_condition, self.while_condition_of = self.while_condition_of, self.ctx  # ':=' there (stmts.py)
        try:
            cond = self.visit(node.test)
        finally:
            self.while_condition_of = saved_condition
        if not is_runtime(cond):
            cond = int(bool(cond))
        cond_text = self.ops.text(self.scalar(cond, "a while condition"))
        prelude = self.builder.close()
        saved_top = self.top_level
        self.loops.append("serial")
        self.runtime_loop_depth += 1
        try:
            body = self.translate_block(node.body)
        finally:
            self.loops.pop()
            self.runtime_loop_depth -= 1
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
        if self.check_loop_jump("break"):
            self.builder.emit("break")

    def visit_Continue(self, node):
        if self.check_loop_jump("continue"):
            self.builder.emit("continue")

    def check_loop_jump(self, what):
        """Whether the jump is emitted; in a qd.static() loop it ends the unrolled iteration (or the
        unrolling) at compile time instead, which needs compile-time conditions on the way to it."""
        if not self.loops:
            raise self.fail(f"'{what}' outside a loop")
        loop = self.loops[-1]
        if loop == "static":
            if loop.runtime_ifs:
                raise self.fail(f"You are trying to `{what}` a static `for` loop, but the `{what}` statement is "
                                "inside a non-static `if`",
                                hint="make the condition compile-time with qd.static(...), or use a runtime loop.")
            loop.jump = what
            return False
        if self.loops[-1] == "parallel" and what == "break":
            raise self.fail("Cannot break in the outermost loop: it runs in parallel",
                            hint="add qd.loop_config(serialize=True) before the loop to run it serially.")
        return True


class StaticLoop(str):
    """The `loops` entry of a qd.static() loop being unrolled (equal to "static"): `jump` is the break or
    continue met in the iteration being translated, `runtime_ifs` how many runtime ifs enclose the
    statement being translated inside this loop's body."""

    def __new__(cls):
        loop = super().__new__(cls, "static")
        loop.jump = None
        loop.runtime_ifs = 0
        return loop


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


def _assigned_names(stmts):
    """The plain names that assignments in stmts bind (`x = ...`, `x += ...`, `a, x = ...`); a name found where it
    is not the loop variable's (a nested scope) only costs a copy."""
    names = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names
