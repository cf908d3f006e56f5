# python/quadrants/frontend/stmts.py: translation of statements: assignments, if/while, break/continue, return.
import ast
import inspect
import math

from quadrants.base import registry
from quadrants.base.swizzles import out_of_range_message, swizzle_indices
from quadrants.frontend import builtins as qd_builtins
from quadrants.frontend.buffer_views import ViewValue
from quadrants.frontend.component_refs import ComponentsRef, members_target
from quadrants.frontend.compound_params import CompoundRef
from quadrants.frontend.dynamic_index import SelectTarget
from quadrants.frontend.exprs import BINARY_OPS, element_index_parts, element_indices
from quadrants.frontend.extra_builtins import subscript_call_node
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.loops import LoopTranslator
from quadrants.frontend.matrix_slices import has_slice, sliced
from quadrants.frontend.no_activate import store_guard
from quadrants.frontend.print_format import merged_print_items, print_item_text
from quadrants.frontend.quant_access import QuantRef, QuantTarget
from quadrants.frontend.returns import ReturnTranslator, _contains_return, _is_static_test
from quadrants.frontend.simt_values import SharedArray, SharedTarget
from quadrants.frontend.sparse_access import FieldRef, activate_for_store
from quadrants.frontend.struct_values import StructField, StructTarget
from quadrants.frontend.targets import ArrayTarget, VarTarget, VectorTarget
from quadrants.frontend.values import (
    ArrayRef,
    FormattedText,
    LocalVar,
    ParamVar,
    StaticBinding,
    VectorValue,
    VectorVar,
    is_runtime,
)
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import VectorType, scalar_dtype_name
from quadrants.types.unpacked import UnpackedGroup

MAX_ASSERT_VALUES = 8  # kMaxAssertValues in src/ir/ir.h

# Augmented assignments that are atomic on arrays (and on kernel-scope locals inside parallel loops).
_SUBSCRIPT_UPDATE_HOOKS = {ast.Add: "_qd_subscript_iadd", ast.Sub: "_qd_subscript_isub"}
_ATOMIC_AUG_OPS = {ast.Add: "add", ast.Sub: "sub", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}


class StmtTranslator(ReturnTranslator, LoopTranslator):
    def visit_body(self, stmts):
        for k, stmt in enumerate(stmts):
            self.set_loc(stmt)
            self.visit(stmt)
            if isinstance(stmt, ast.Return) or getattr(self.loops[-1] if self.loops else None, "jump", None):
                return  # a return, or a break/continue of a qd.static() loop: the rest is never reached
            if self.ctx.done_flag and _contains_return(stmt):
                self.guard_after_return(stmts[k + 1 :], isinstance(stmt, (ast.For, ast.While)))
                return

    def translate_block(self, stmts, scope=True):
        """Translates `stmts` into a new IR block (a new Python-level scope unless scope=False)."""
        saved_top, saved_loc = self.top_level, self.builder.loc
        self.top_level = False
        self.builder.open()
        if scope:
            self.push_scope()
        try:
            self.visit_body(stmts)
        finally:
            if scope:
                self.pop_scope()
            self.top_level = saved_top
            self.builder.loc = saved_loc
        return self.builder.close()

    # ---- assignment -----------------------------------------------------------------------------
    def visit_Assign(self, node):
        for target in node.targets:
            self.check_not_kernel_param(target)
        value = self.visit(node.value)
        if self.binds_static_value(node):
            for target in node.targets:  # `x = qd.static(v)`: x is v itself, as upstream binds it
                self.bind(target.id, StaticBinding(self.capture(value)))
            return
        if len(node.targets) > 1:
            # `a = b = a + b`: Python evaluates the value once, before any target is stored; our values are
            # expressions read where they are used, so one stored first would change what the next target gets.
            value = self.snapshot(value)
        for target in node.targets:
            self.assign(target, value)

    def visit_NamedExpr(self, node):
        """`(x := value)`: assigns x as `x = value` would (a qd.static value binds x to it), then reads x."""
        self.check_not_kernel_param(node.target)
        value = self.visit(node.value)
        name = node.target.id
        if self.lookup_binding(name) is None and self.while_condition_of is self.ctx:
            raise self.fail(f"'{name}' is first assigned by ':=' in a while condition, which runs inside the loop, so "
                            "it would not exist after the loop", hint=f"assign '{name}' before the loop first.")
        if self.binds_static_value(node):
            self.bind(name, StaticBinding(self.capture(value)))
        else:
            self.assign(node.target, value)
        return self.visit_Name(ast.Name(id=name, ctx=ast.Load()))

    def check_not_kernel_param(self, target):
        """A kernel's parameters cannot be assigned to, as upstream rules (a @qd.func's are copies and can)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.check_not_kernel_param(element)
            return
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, ast.Name) and self.ctx.is_kernel and target.id in self.ctx.kernel_params:
            raise self.fail(f'Kernel argument "{target.id}" is immutable in the kernel. If you want to change its '
                            "value, please create a new variable.", node=target,
                            hint=f"e.g. '{target.id}_local = {target.id}', then update {target.id}_local.")

    def binds_static_value(self, node):
        """Whether the statement gives new names the compile-time result of a qd.static(...) call."""
        call = node.value
        if not isinstance(call, ast.Call) or self.visit(call.func) is not qd_builtins.static:
            return False
        targets = [node.target] if isinstance(node, ast.NamedExpr) else node.targets
        if any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in targets):  # `a[0] = qd.static(2)`, as upstream
            raise self.fail("Static assign cannot be used on elements in arrays",
                            hint="a qd.static(...) value can only be given a new name (`n = qd.static(2)`); store "
                            "the plain value into the element instead.")
        if not all(isinstance(t, ast.Name) for t in targets):
            return False
        for target in targets:  # as upstream: a static value gets a new name of this block (it may shadow one)
            if target.id in self.ctx.scopes[-1]:
                raise self.fail("Recreating variables is not allowed", node=target,
                                hint=f"'{target.id}' already exists in this block, so `{target.id} = qd.static(...)` "
                                "cannot rebind it: use a new name.")
        return True

    def visit_AnnAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.fail("only a plain name can be annotated inside a kernel, e.g. 'x: qd.f32 = 0'")
        self.check_not_kernel_param(node.target)
        annotation = self.visit(node.annotation)
        value = self.visit(node.value) if node.value is not None else 0
        if isinstance(annotation, VectorType):
            if is_number(value) or isinstance(value, Expr):
                value = VectorValue([value] * math.prod(annotation.shape), annotation.shape)
            dtype = self.default_fp if annotation.dtype is None else scalar_dtype_name(annotation.dtype)
        else:
            dtype = self.dtype_argument(annotation)
        if self.lookup_binding(node.target.id) is not None:
            raise self.fail(f"'{node.target.id}' is already defined; only its first assignment can carry a type",
                            hint=f"remove the annotation, or use a new name instead of '{node.target.id}'.")
        self.declare(node.target.id, value, dtype)

    def assign(self, target, value):
        if isinstance(target, (ast.Tuple, ast.List)):
            self.assign_unpacked(target, value)
            return
        if isinstance(target, ast.Name):
            binding = self.lookup_binding(target.id)
            if binding is None or isinstance(binding, (StaticBinding, ParamVar)):
                self.declare(target.id, value)
                return
        if isinstance(target, ast.Starred):
            raise self.fail("starred assignment is not supported inside kernels")
        self.store(self.lvalue(target), value)

    def assign_unpacked(self, target, value):
        if isinstance(value, VectorValue) and not value.is_matrix:
            items = value.entries
        elif isinstance(value, (tuple, list)):
            items = list(value)
        else:
            raise self.fail(f"cannot unpack {describe(value)} into {len(target.elts)} names", kind="type")
        if len(items) != len(target.elts):
            raise self.fail(f"cannot unpack {len(items)} values into {len(target.elts)} names", kind="type")
        # Evaluate every right-hand side before any store, as Python does ('a, b = b, a').
        items = [self.snapshot(item) for item in items] if len(items) > 1 else items
        for element, item in zip(target.elts, items):
            self.assign(element, item)

    def snapshot(self, value):
        if isinstance(value, Expr):
            name = self.names.fresh("_t")
            self.builder.emit(f"decl {name} {self.ops.text(value)}")
            return Expr(f"(var {name})")
        if isinstance(value, VectorValue):
            return VectorValue([self.snapshot(x) for x in value.entries], value.shape)
        return value

    def store(self, target, value):
        if registry.get("tile_syntax").store_tile(self, target, value):
            return
        if isinstance(target, StructTarget):
            self.store_struct(target, value)
            return
        if isinstance(target, VectorTarget):
            if isinstance(value, (list, tuple)):  # a[i] = [[1, 2], [3, 4]]: the list's shape must match
                value = _nested_to_vector(self, value, target.shape, target)
            if not isinstance(value, VectorValue):
                value = self.scalar(value, "the value stored into a vector")
                value = VectorValue([self.materialize(value) if isinstance(value, Expr) else value] *
                                    len(target.targets), target.shape)
            if value.shape != target.shape:
                raise self.fail(f"cannot assign {describe(value)} to a {_shape_text(target.shape)} target"
                                f"{_ir_type_mismatch(self, value.entries, value.shape, target)}", kind="type")
            if len(value.entries) > 1 and _reads_what_it_writes(value.entries, target.targets):
                # `V = V @ J`, `a[i] = M @ a[i]`: every entry is computed before any is stored, or the later
                # entries would read the ones already overwritten.
                value = self.snapshot(value)
            for element, item in zip(target.targets, value.entries):
                self.emit_store(element, self.sink_text(item))
            return
        if isinstance(value, VectorValue):
            raise self.fail(f"cannot assign {describe(value)} to a scalar", kind="type",
                            hint="declare a new variable for the vector, or index it: v[0].")
        self.emit_store(target, self.sink_text(self.scalar(value, "the assigned value")))

    def emit_store(self, target, text):
        if isinstance(target, (SelectTarget, QuantTarget)):  # picked by a runtime index, or packed bits
            target.emit_store(self, text)
        else:
            self.builder.emit(target.store_head(text))

    def visit_FunctionDef(self, node):
        where = "qd.kernel" if self.ctx.is_kernel else "qd.func"
        raise self.fail(f"Function definition is not allowed in '{where}'",
                        hint="define the function outside, with @qd.func to call it from kernels.")

    def lvalue(self, node, operand_of=None):
        """What an assignment target refers to: a local, an array element, or a vector of those. operand_of: the
        atomic whose first operand `node` is, which upstream's error for a value that is no target names."""
        if isinstance(node, ast.Name):
            binding = self.lookup_binding(node.id)
            if isinstance(binding, LocalVar):
                return VarTarget(binding.name, binding.parallel_depth)
            if isinstance(binding, VectorVar):
                depth = binding.parallel_depth
                return VectorTarget([VarTarget(n, depth) for n in binding.names], binding.shape)
            target = self.struct_name_target(binding)  # a struct local (struct_values.py)
            if target is not None:
                return target
            raise self.fail(f"'{node.id}' is not a local variable or array element, so it cannot be updated")
        if isinstance(node, ast.Subscript):
            base = self.visit(node.value)
            sliced = registry.get("tile_syntax").slice_target(self, base, node.slice)  # t[:] and a[r0:r1, c0:c1] of tiles
            if sliced is not None:
                return sliced
            if isinstance(base, ViewValue):  # v[i] = x of a qd.BufferView (buffer_views.py)
                return self.array_target(base.array, self.view_index(base, self.visit(node.slice)))
            if isinstance(base, ArrayRef):
                return self.array_target(base, self.visit(node.slice))
            if isinstance(base, SharedArray):  # qd.simt.block.SharedArray (simt/_ir.py)
                return base.target(self, self.visit(node.slice))
            if isinstance(base, StructField):
                return self.struct_field_target(base, self.visit(node.slice), node.value)
            if isinstance(base, (list, tuple, dict)):  # verts[1] = v of a list built in the kernel (local_lists.py)
                return self.sequence_entry_target(base, self.visit(node.slice), node)
            base = self.lvalue(node.value)
            if isinstance(base, UnpackedGroup):  # s.r[i] = v of an unpacked vector member (unpacked.py)
                return base.entry(self.visit(node.slice), self.fail)
            return self.vector_target_element(base, self.visit(node.slice))
        subscript = subscript_call_node(self, node)  # impl.subscript(builder, x, i): x[i] (extra_builtins.py)
        if subscript is not None:
            return self.lvalue(subscript)
        if isinstance(node, ast.Attribute):
            base = self.lvalue(node.value)
            if isinstance(base, StructTarget):
                return self.struct_member_target(base, node.attr)
            indices = swizzle_indices(node.attr)
            if isinstance(base, VectorTarget) and len(base.shape) == 1 and indices is not None:
                return self.swizzle_target(base, node.attr, indices)
        if operand_of is not None:
            raise self.fail(f"`{ast.unparse(node)}` is a value, not a variable or element: cannot use a non-writable "
                            f"target as the first operand of '{operand_of}'",
                            hint=f"the first operand of {operand_of}() is updated in place: pass a local variable or "
                            "a field or ndarray element.")
        raise self.fail("this expression cannot be assigned to inside a kernel")

    def array_target(self, array, index):
        if isinstance(array, ComponentsRef):
            return members_target(self, array, index)
        if isinstance(array, QuantRef):  # a quantized field: its word's bits (quant_access.py)
            return QuantTarget(self, array, index)
        indices = self.array_indices(array, index)
        guard = None
        if isinstance(array, FieldRef) and array.activity:  # a store activates sparse cells (sparse_access.py)
            guard = store_guard(self, activate_for_store(self, array, indices))  # unless qd.no_activate() says
        if not array.element_shape:
            return ArrayTarget(array, indices, (), guard)
        return VectorTarget([ArrayTarget(array, indices, e, guard) for e in element_indices(array.element_shape)],
                            array.element_shape)

    def swizzle_target(self, base, name, indices):
        """`v.x = ...`, `v.bgr = ...`: the named components, in the swizzle's order."""
        if max(indices) >= base.shape[0]:
            raise self.fail(out_of_range_message(name, base.shape[0]))
        if len(set(indices)) != len(indices):
            raise self.fail(f"swizzle '.{name}' names a component twice, so it cannot be assigned to",
                            hint="assign the components one by one.")
        if len(indices) == 1:
            return base.targets[indices[0]]
        return VectorTarget([base.targets[i] for i in indices], (len(indices),))

    def vector_target_element(self, base, index):
        if not isinstance(base, VectorTarget):
            raise self.fail("only vectors, matrices and arrays can be indexed in an assignment", kind="type")
        parts = element_index_parts(index, base.shape)
        if has_slice(parts):  # m[i, :] = v (matrix_slices.py)
            return sliced(self, base.shape, parts, lambda index: self.vector_target_element(base, index), VectorTarget)
        if any(isinstance(p, Expr) for p in parts):
            return self.dynamic_target_element(base, parts)
        shadow = VectorValue(base.targets, base.shape)
        element = self.vector_element(shadow, index)
        return VectorTarget(element.entries, element.shape) if isinstance(element, VectorValue) else element

    def visit_AugAssign(self, node):
        self.check_not_kernel_param(node.target)
        if registry.get("tile_syntax").tile_augmented(self, node) or self.subscript_update_hook(node):  # t -= qd.outer(a, b)
            return
        target = self.lvalue(node.target)
        if isinstance(target, StructTarget):
            raise self.fail("a whole struct cannot be updated with an operator such as +=", kind="type",
                            hint="update its members: s.a += x.")
        value = self.visit(node.value)
        if isinstance(target, VectorTarget) and isinstance(value, (list, tuple)):
            value = _nested_to_vector(self, value, target.shape)  # v += [a, b], m += [[1, 2], [3, 4]], as upstream
        atomic_op = _ATOMIC_AUG_OPS.get(type(node.op))
        if atomic_op is not None and self.needs_atomic(target):
            self.emit_effects(self.atomic_update(atomic_op, target, value))
            return
        current = self.target_value(target)
        if isinstance(node.op, ast.MatMult):
            result = self.ops.matmul(current, value)
        else:
            result = self.checked(lambda: self.ops.bin(BINARY_OPS[type(node.op)], current, value))
        self.store(target, result)

    def subscript_update_hook(self, node):
        """`obj[i, j] += v` (or -=) on a data_oriented argument whose class defines the @qd.func
        _qd_subscript_iadd/_isub(self, *indices, value) (qd.linalg.SparseMatrixBuilder): a call of it."""
        if not isinstance(node.target, ast.Subscript) or not isinstance(node.target.value, (ast.Name, ast.Attribute)):
            return False
        base = self.visit(node.target.value)
        if not (isinstance(base, CompoundRef) and hasattr(base.cls, "_qd_subscript_iadd")):
            return False
        name = _SUBSCRIPT_UPDATE_HOOKS.get(type(node.op))
        if name is None:
            raise self.fail(f"{base.cls.__name__} entries can only be updated with += or -=", kind="type")
        index = self.visit(node.target.slice)
        indices = list(index) if isinstance(index, tuple) else [index]
        method = self.compound_member(base, name)
        self.inline_func(method.func, [method.instance, *indices, self.visit(node.value)], {})
        return True

    def needs_atomic(self, target):
        first = target.targets[0] if isinstance(target, VectorTarget) else target
        if isinstance(first, SelectTarget) and first.writes_array:
            return True
        return isinstance(first, (ArrayTarget, SharedTarget, QuantTarget)) or first.parallel_depth < self.parallel_depth

    def target_value(self, target):
        if isinstance(target, VectorTarget):
            return VectorValue([t.load() for t in target.targets], target.shape)
        return target.load()

    def atomic_update(self, op, target, value):
        """The atomic read-modify-write of `target` (old value returned), elementwise on vectors."""
        if isinstance(target, VectorTarget):
            if not isinstance(value, VectorValue):
                value = VectorValue([self.materialize_value(value)] * len(target.targets), target.shape)
            if value.shape != target.shape:
                raise self.fail(f"cannot update a {_shape_text(target.shape)} target with {describe(value)}",
                                kind="type")
            return VectorValue([self.atomic_update(op, t, v) for t, v in zip(target.targets, value.entries)],
                               target.shape)
        text = self.ops.text(self.scalar(value, "the value of an atomic update"))
        if isinstance(target, (SelectTarget, QuantTarget)):
            return target.emit_atomic(self, op, text)
        return Expr(target.atomic_head(op, text), side_effect=True)

    def emit_effects(self, value):
        """Evaluates an expression statement: atomics become `eval`, pure values are dropped."""
        entries = value.entries if isinstance(value, VectorValue) else [value]
        for entry in entries:
            if isinstance(entry, Expr) and entry.side_effect:
                self.builder.emit(f"eval {entry.text}")

    # ---- other statements -----------------------------------------------------------------------
    def visit_Expr(self, node):
        self.emit_effects(self.visit(node.value))

    def visit_Pass(self, node):
        pass

    def visit_If(self, node):
        cond = self.visit(node.test)
        if not is_runtime(cond):  # only one branch is compiled
            branch = node.body if cond else node.orelse
            if _is_static_test(node.test):
                self.visit_body(branch)  # qd.static: the branch stands where the if was
                return
            # Any other compile-time condition (True, a captured constant) is an ordinary if to upstream, which
            # documents that a non-static if over a for loop stops it being parallelized: the branch is not
            # top-level code, so its loops run serially, as they would under a runtime condition. Its names are
            # the branch's own, as under a runtime condition: upstream's `if True: a = 0` leaves no `a` after it.
            for stmt in self.translate_block(branch):
                self.builder.append(stmt)
            return
        loc = self.builder.loc
        text = self.ops.text(self.scalar(cond, "an if condition"))
        loop = self.loops[-1] if self.loops else None
        if loop == "static":  # a break/continue of the static loop cannot be under this if (loops.py)
            loop.runtime_ifs += 1
        try:
            then_block, else_block = self.translate_block(node.body), self.translate_block(node.orelse)
        finally:
            if loop == "static":
                loop.runtime_ifs -= 1
        self.builder.emit(f"if {text}", [then_block, else_block], loc=loc)

    def static_assert(self, args, kwargs):
        """qd.static_assert(cond, msg=None): fails the compile when the compile-time cond is false."""
        try:
            bound = inspect.signature(_static_assert_signature).bind(*args, **kwargs)
        except TypeError as exc:
            raise self.fail(f"wrong arguments for qd.static_assert(cond, msg=None): {exc}", kind="type") from None
        cond, msg = bound.arguments["cond"], bound.arguments.get("msg")
        if is_runtime(cond):
            raise self.fail("Static assert with non-static condition", kind="type",
                            hint="qd.static_assert checks values known at compile time; use assert for kernel values.")
        if not cond:
            raise self.fail(f"static assertion failed: {msg}" if msg is not None else "static assertion failed",
                            kind="type")

    def static_print(self, args, kwargs):
        """qd.static_print(...): Python's print, while the kernel compiles; kernel values show their IR."""
        unknown = set(kwargs) - {"sep", "end", "file", "flush"}
        if unknown:
            raise self.fail(f"qd.static_print() takes print()'s sep=, end=, file= and flush=, but got "
                            f"{', '.join(sorted(unknown))}", kind="type")
        self.reads.uncacheable("qd.static_print() prints while the kernel is translated")
        print(*[_static_text(a) for a in args], **kwargs)

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        message = self.visit(node.msg) if node.msg is not None else ast.unparse(node.test)
        if not isinstance(message, (str, FormattedText)):
            raise self.fail(f"the message of an assert inside a kernel must be a string, an f-string or a '%' "
                            f"format of kernel values, but got {describe(message)}", kind="type")
        if not is_runtime(cond):
            if cond:
                return
            # As upstream, a condition known to be false is still an assert of the kernel, checked when it runs
            # in debug mode (and ignored otherwise), not an error of the compile: qd.static_assert is that.
            cond = Expr("(const i32 0)")
        items = self.assert_message_items(message)
        cond_text = self.ops.text(self.scalar(cond, 'an assert condition'))
        if self.config.debug:  # checked, as upstream, in debug mode only: not under check_out_of_bound alone
            self.builder.emit(f"assert {cond_text} {items}")

    def assert_message_items(self, message):
        """The IR items of an assert's message, as print()'s: the kernel error record carries at most
        MAX_ASSERT_VALUES of its values (src/ir/ir.h, kMaxAssertValues) to the host, which formats them."""
        items = []
        self.print_items(message, items)
        items = merged_print_items(items) or [""]
        values = sum(not isinstance(item, str) for item in items)
        if values > MAX_ASSERT_VALUES:
            raise self.fail(f"an assert message can show at most {MAX_ASSERT_VALUES} kernel values, but this one "
                            f"shows {values}", kind="type",
                            hint="split the check into several asserts, or show fewer values.")
        return " ".join(print_item_text(self.ops, item) for item in items)

def _static_assert_signature(cond, msg=None):
    """The parameters of qd.static_assert, for binding a call's arguments."""


def _static_text(value):
    """How qd.static_print shows a value: compile-time values as print() would, kernel values as IR."""
    if isinstance(value, Expr):
        return f"<kernel value {value.text}>"
    if isinstance(value, VectorValue):
        return "[" + ", ".join(str(_static_text(entry)) for entry in value.entries) + "]"
    return value


def _shape_text(shape):
    return "x".join(map(str, shape)) if len(shape) == 2 else f"{shape[0]}-vector"


def _nested_to_vector(tr, value, shape, target=None):
    """A (nested) Python list or tuple stored into a vector/matrix target, as the VectorValue of that shape."""
    entries = list(value)
    if len(shape) == 2 and len(entries) == shape[0] and all(
            isinstance(row, (list, tuple)) and len(row) == shape[1] for row in entries):
        entries = [x for row in entries for x in row]
    if len(entries) != math.prod(shape) or any(isinstance(x, (list, tuple)) for x in entries):
        rows = [x for x in entries if isinstance(x, (list, tuple))]
        if not rows:
            mismatch = _ir_type_mismatch(tr, entries, (len(entries),), target)
        elif len(rows) == len(entries) and len({len(r) for r in rows}) == 1:
            mismatch = _ir_type_mismatch(tr, [x for r in rows for x in r], (len(rows), len(rows[0])), target)
        else:
            mismatch = ""
        raise tr.fail(f"cannot assign the list {value!r} to a {_shape_text(shape)} target: its shape differs{mismatch}",
                      kind="type")
    return VectorValue([tr.scalar(x, "an entry of the stored list") for x in entries], shape)


def _ir_type_mismatch(tr, entries, shape, target):
    """Upstream's words for a vector stored into one of another shape, "; cannot assign '[Tensor (2) i32]' to
    '[Tensor (3) i32]'", when both entry types are known here (numbers and constants; array elements), else ""."""
    given = _constants_dtype(tr, entries)
    targets = getattr(target, "targets", ())
    wanted = {t.array.dtype_name for t in targets if isinstance(t, ArrayTarget)}
    if given is None or len(wanted) != 1 or len(targets) != math.prod(target.shape):
        return ""
    return f"; cannot assign '{_tensor_text(shape, given)}' to '{_tensor_text(target.shape, wanted.pop())}'"


def _tensor_text(shape, dtype_name):
    return f"[Tensor ({', '.join(map(str, shape))}) {dtype_name}]"


def _constants_dtype(tr, entries):
    """The type upstream gives a vector of these entries when all are Python numbers or untyped constants: the
    default float type if one is a float, else the default integer type; None when one is another kernel value."""
    kinds = set()
    for entry in entries:
        text = entry.text if isinstance(entry, Expr) else None
        if isinstance(entry, bool) or not (is_number(entry) or (text or "").startswith(("(const int ", "(const float "))):
            return None
        kinds.add("float" if isinstance(entry, float) or (text or "").startswith("(const float ") else "int")
    return tr.default_fp if "float" in kinds else tr.default_ip


def _reads_what_it_writes(entries, targets):
    """Whether storing `entries` one by one into `targets` could change what a later entry reads: an entry reads one
    of the target locals, or the targets are array elements and an entry loads from an array (arguments may alias)."""
    texts = [item.text for item in entries if isinstance(item, Expr)]
    written, flat = set(), list(targets)
    while flat:
        target = flat.pop()
        if isinstance(target, SelectTarget):
            flat += target.targets
        elif isinstance(target, VarTarget):
            written.add(f"(var {target.name})")
        else:
            written.add("(load ")
    return any(w in text for w in written for text in texts)
