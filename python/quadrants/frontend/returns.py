# python/quadrants/frontend/returns.py: `return` in kernels and funcs: the kernel's returned values, and a func's
# early returns (a flag and a result slot, with the statements after a return guarded by the flag).
import ast
import math

from quadrants.data.struct import StructType
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.return_values import tuple_items
from quadrants.frontend.struct_values import is_struct, same_struct_type
from quadrants.frontend.targets import VarTarget, VectorTarget
from quadrants.frontend.values import VectorValue, is_runtime
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import VectorType


class ReturnTranslator:
    """Mixed into the Translator (through StmtTranslator): return statements and the bodies that hold them."""

    def visit_Return(self, node):
        if self.ctx.real_function is not None:
            self.real_return(node)
        elif self.ctx.is_kernel:
            self.kernel_return(node)
        elif self.ctx.done_flag:
            self.early_return(node)
        else:
            self.ctx.return_value = self.returned_value(node)

    def kernel_return(self, node):
        if not self.top_level:
            raise self.fail("Return inside non-static if/for is not supported in a kernel: it can only return at the "
                            "top level of its body", hint="store the result in a local and return it at the end.")
        if self.ctx.return_annotation is None:
            if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
                return  # `return` and `return None` alike
            raise self.fail("this kernel returns a value but has no return type",
                            hint="annotate the kernel's return type, e.g. 'def k(...) -> qd.f32:'.")
        spec = self.ctx.return_annotation
        if node.value is None:
            raise self.fail(f"this kernel returns {spec!r}, but this return gives no value", kind="type")
        scalars = self.returned_scalars(spec, self.visit(node.value))
        self.builder.emit("return " + " ".join(self.sink_text(x) for x in scalars))
        self.ctx.kernel_returned = True

    def returns_text(self, spec):
        """The `(returns ...)` types of a kernel's ReturnSpec (return_values.py)."""
        return "void" if spec is None else " ".join(spec.dtype_names(self.default_fp, self.default_ip))

    def returned_scalars(self, spec, value):
        """The scalars a kernel returns for `value`, in the order of spec.leaves()."""
        if spec.kind == "scalar":
            if not (isinstance(value, Expr) or is_number(value)):
                raise self.fail(f"this kernel returns {spec!r}, but the value is {describe(value)}", kind="type")
            return [value]
        if spec.kind == "vector":
            if not isinstance(value, VectorValue) or value.shape != spec.annotation.shape:
                raise self.fail(f"this kernel returns {spec!r}, but the value is {describe(value)}", kind="type",
                                hint="return a value of the annotated shape, e.g. qd.Vector([x, y, z]).")
            return list(self.materialize_value(value).entries)
        if spec.kind == "struct":
            if not is_struct(value):
                raise self.fail(f"this kernel returns {spec!r}, but the value is {describe(value)}", kind="type")
            value = self.as_struct_value(value)
            if value.struct_type is not None and not same_struct_type(value.struct_type, spec.annotation):
                raise self.fail(f"this kernel returns {spec.annotation!r}, but the value is a struct "
                                f"{value.struct_type!r}", kind="type",
                                hint="build the returned value with the annotated struct type.")
            value = self.cast_struct(spec.annotation, value, "the returned value")
            return [x for key, child in spec.children.items() for x in self.returned_scalars(child, value.members[key])]
        if not isinstance(value, (tuple, list)) or len(value) != len(spec.children):
            raise self.fail(f"this kernel returns {len(spec.children)} values {spec!r}, but the value is "
                            f"{describe(value)}", kind="type")
        return [x for child, item in zip(spec.children, value) for x in self.returned_scalars(child, item)]

    def returned_value(self, node):
        """A func's value, stored in fresh locals so later statements of the caller cannot change it."""
        if node.value is None:
            return None
        return self.copied_return(self.visit(node.value), self.ctx.return_annotation)

    def copied_return(self, value, annotation):
        """`value` in fresh locals, cast to the annotation: a dtype, vector, struct or tuple type, or None."""
        if is_struct(value) or isinstance(annotation, StructType):
            return self.struct_return(value, annotation)
        items = tuple_items(annotation)
        if items is not None or (isinstance(value, tuple) and any(is_runtime(v) or is_struct(v) for v in value)):
            if not isinstance(value, (tuple, list)) or (items is not None and len(items) != len(value)):
                raise self.fail(f"this @qd.func returns {annotation!r}, but the value is {describe(value)}",
                                kind="type")
            return tuple(self.copied_return(v, items[k] if items else None) for k, v in enumerate(value))
        if annotation is not None and (is_runtime(value) or is_number(value)):
            dtype = annotation.dtype if isinstance(annotation, VectorType) else annotation
            dtype_name = self.default_fp if dtype is None else self.dtype_argument(dtype)
            return self.fresh_locals(value, dtype_name)
        return self.fresh_locals(value, None) if is_runtime(value) else value

    def fresh_locals(self, value, dtype_name):
        if isinstance(value, VectorValue):
            return VectorValue([self.fresh_locals(x, dtype_name) for x in value.entries], value.shape)
        name = self._decl(self.names.fresh("_ret"), value, dtype_name)
        return Expr(f"(var {name})")


    # ---- funcs: return values and returns from inside ifs and loops -----------------------------
    def visit_function_body(self, stmts):
        returns = [n for stmt in stmts for n in ast.walk(stmt) if isinstance(n, ast.Return)]
        if self.ctx.return_annotation is not None and not any(n.value is not None for n in returns):
            raise self.fail("Function has a return type but does not have a return statement",
                            hint="return a value, or remove the return annotation.", node=self.ctx.source.tree)
        if returns_early(stmts):
            self.start_early_returns(any(n.value is not None for n in returns))
        self.visit_body(stmts)

    def start_early_returns(self, returns_value):
        """Returns before the end go through a result slot and a flag that skips the statements after."""
        if returns_value:
            annotation = self.ctx.return_annotation
            if annotation is None:
                raise self.fail("Return inside non-static if/for is not supported without a return type: a @qd.func "
                                "that returns a value from inside an if or a loop needs one",
                                hint="annotate it, e.g. 'def f(x) -> qd.f32:'.")
            self.ctx.return_slot, self.ctx.return_value = self.return_slot(annotation)
        self.ctx.done_flag = self.names.fresh("_returned")
        self.builder.emit(f"decl {self.ctx.done_flag} (const int 0)")

    def return_slot(self, annotation):
        """(target, value) of the zero-initialized locals a func returns through from inside ifs and loops."""
        if isinstance(annotation, StructType):  # one local per scalar member (struct_values.py)
            return self.struct_return_slot(annotation)
        items = tuple_items(annotation)
        if items is not None:
            slots = [self.return_slot(item) for item in items]
            return tuple(s[0] for s in slots), tuple(s[1] for s in slots)
        shape = annotation.shape if isinstance(annotation, VectorType) else ()
        dtype = annotation.dtype if isinstance(annotation, VectorType) else annotation
        dtype_name = self.default_fp if dtype is None else self.dtype_argument(dtype)
        targets = [VarTarget(self._decl(self.names.fresh("_ret"), 0, dtype_name), self.parallel_depth)
                   for _ in range(math.prod(shape))]
        slot = VectorTarget(targets, shape) if shape else targets[0]
        return slot, self.target_value(slot)

    def store_returned(self, slot, value):
        if not isinstance(slot, tuple):
            self.store(slot, value)
            return
        if not isinstance(value, (tuple, list)) or len(value) != len(slot):
            raise self.fail(f"this @qd.func returns {len(slot)} values, but the value is {describe(value)}",
                            kind="type")
        values = [self.snapshot(v) for v in value]  # all evaluated before any is stored, as in Python
        for target, item in zip(slot, values):
            self.store_returned(target, item)

    def early_return(self, node):
        if node.value is not None:
            self.store_returned(self.ctx.return_slot, self.visit(node.value))
        self.builder.emit(f"assign {self.ctx.done_flag} (const int 1)")
        if self.in_runtime_loop():
            self.builder.emit("break")

    def guard_after_return(self, rest, after_loop):
        """After a statement that may have returned: leave the loop, or skip the rest of the body.

        After a loop inside a loop the check is needed even with nothing after it: the return's own
        `break` only left the inner loop, and this one would run on.
        """
        if not rest and not (after_loop and self.in_runtime_loop()):
            return
        done = self.ctx.done_flag
        if self.in_runtime_loop():
            self.builder.open()
            self.builder.emit("break")
            self.builder.emit(f"if (var {done})", [self.builder.close(), []])
            self.visit_body(rest)
            return
        loc = self.builder.loc
        block = self.translate_block(rest, scope=False)
        self.builder.emit(f"if (bin eq (var {done}) (const int 0))", [block, []], loc=loc)

    def in_runtime_loop(self):
        return any(kind != "static" for kind in self.loops)


def _contains_return(node):
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def returns_early(stmts):
    """Whether a function body returns before its end: such returns go through an early-return flag."""
    tail = _tail_returns(stmts)
    return any(isinstance(n, ast.Return) and n not in tail for stmt in stmts for n in ast.walk(stmt))


def _tail_returns(stmts):
    """The returns that end the body: its last statement, or the last statements of the branches of a
    `qd.static` if (and elif chain) that ends it. Only one branch of such an if is compiled, so these need no
    early-return flag (upstream allows them in funcs without a return type)."""
    if not stmts:
        return set()
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return {last}
    if isinstance(last, ast.If) and _is_static_test(last.test):
        return _tail_returns(last.body) | _tail_returns(last.orelse)
    return set()



def _is_static_test(test):
    """Whether an if's test is a qd.static(...) call, decided when the function compiles."""
    return isinstance(test, ast.Call) and (
        (isinstance(test.func, ast.Attribute) and test.func.attr == "static") or
        (isinstance(test.func, ast.Name) and test.func.id == "static"))
