# python/quadrants/frontend/calls.py: translation of calls: qd built-ins, casts, vector constructors and methods,
# inlined @qd.func calls, and the binding of kernel and func parameters.
import ast
import builtins as _py_builtins
import inspect
import math as _py_math
import operator as _py_operator

from quadrants.base import dtypes as _dtypes
from quadrants.base import python_scope
from quadrants.base.errors import QuadrantsSyntaxError
from quadrants.base.python_scope import KernelScopeError
from quadrants.data.buffer_view import BufferView
from quadrants.data.matrix import Matrix, Vector
from quadrants.data.snode import SNode
from quadrants.frontend import builtins as qd_builtins, extra_builtins
from quadrants.frontend.buffer_views import ViewMethod
from quadrants.frontend.compound_params import CompoundRef
from quadrants.frontend.dynamic_index import SelectTarget
from quadrants.frontend.quant_access import QuantTarget
from quadrants.frontend.exprs import VectorMethod
from quadrants.frontend.func_args import misplaced_star
from quadrants.frontend.funcs import BoundFunc, Func, is_kernel
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.literals import primitive_type_call
from quadrants.frontend.print_format import SpecValue, formatted_text, merged_print_items, print_item_text
from quadrants.frontend.python_builtins import NOT_HANDLED, python_builtin_call, python_sum
from quadrants.frontend.simt_values import SharedTarget
from quadrants.frontend.source import function_source
from quadrants.frontend.struct_values import Struct, StructField, StructType
from quadrants.frontend.targets import VectorTarget
from quadrants.frontend.values import (
    ArrayRef,
    FormattedText,
    VectorValue,
    is_runtime,
)
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import VectorType, scalar_dtype_name
from quadrants.types.unpacked import reject as reject_unpacked

# Python functions that mean the same as a qd built-in inside a kernel.
_PYTHON_EQUIVALENTS = {
    _py_builtins.abs: qd_builtins.abs, _py_builtins.min: qd_builtins.min, _py_builtins.max: qd_builtins.max,
    _py_math.sqrt: qd_builtins.sqrt, _py_math.sin: qd_builtins.sin, _py_math.cos: qd_builtins.cos,
    _py_math.tan: qd_builtins.tan, _py_math.exp: qd_builtins.exp, _py_math.log: qd_builtins.log,
    _py_math.floor: qd_builtins.floor, _py_math.ceil: qd_builtins.ceil, _py_math.atan2: qd_builtins.atan2,
    _py_math.tanh: qd_builtins.tanh, _py_math.asin: qd_builtins.asin, _py_math.acos: qd_builtins.acos,
    _py_math.atan: qd_builtins.atan,
}

# operator.add(a, b) and the like on kernel values: the operator itself (exprs.binary_op).
_OPERATOR_FUNCTIONS = {
    _py_operator.add: ast.Add, _py_operator.sub: ast.Sub, _py_operator.mul: ast.Mult,
    _py_operator.truediv: ast.Div, _py_operator.floordiv: ast.FloorDiv, _py_operator.mod: ast.Mod,
    _py_operator.pow: ast.Pow, _py_operator.matmul: ast.MatMult, _py_operator.lshift: ast.LShift,
    _py_operator.rshift: ast.RShift, _py_operator.and_: ast.BitAnd, _py_operator.or_: ast.BitOr,
    _py_operator.xor: ast.BitXor,
}


def _plain_func(fn):
    """The Func that inlines a plain Python function, kept on the function (a cycle the GC collects)."""
    func = fn.__dict__.get("_qd_inlined")
    if func is None:
        func = fn.__dict__["_qd_inlined"] = Func(fn)
        func.plain_python = True
    return func


def _source_available(fn):
    try:
        function_source(fn)
    except QuadrantsSyntaxError:
        return False
    return True


def _is_zero(value):
    return isinstance(value, (int, float)) and value == 0


def _normalized(ops, v, eps=0):
    """v / (|v| + eps), upstream's normalized(eps): eps is added to the norm, not under its square root."""
    if _is_zero(eps):
        return ops.normalized(v)
    v = ops.tr.materialize_value(v)
    inverse_length = ops.tr.materialize_value(ops.bin("truediv", 1.0, ops.bin("add", ops.norm(v), eps)))
    return ops.bin("mul", v, inverse_length)


_VECTOR_METHODS = {
    "dot": lambda ops, v, o: ops.dot(v, o),
    "cross": lambda ops, v, o: ops.cross(v, o),
    # norm(eps) and norm_inv(eps): eps goes under the square root, as upstream's
    "norm": lambda ops, v, eps=0: ops.norm(v) if _is_zero(eps) else ops.un("sqrt",
                                                                           ops.bin("add", ops.norm_sqr(v), eps)),
    "norm_inv": lambda ops, v, eps=0: ops.un("rsqrt", ops.bin("add", ops.norm_sqr(v), eps)),
    "norm_sqr": lambda ops, v: ops.norm_sqr(v),
    "normalized": _normalized,
    "transpose": lambda ops, v: ops.transpose(v),
    "sum": lambda ops, v: ops.reduce("add", v),
    "any": lambda ops, v: ops.reduce("or", ops.bin("ne", v, 0)),  # i32 1 if an entry is nonzero, as upstream
    "all": lambda ops, v: ops.reduce("and", ops.bin("ne", v, 0)),
    "max": lambda ops, v: ops.reduce("max", v),
    "min": lambda ops, v: ops.reduce("min", v),
    "trace": lambda ops, v: ops.trace(v),
    "determinant": lambda ops, v: ops.determinant(v),
    "inverse": lambda ops, v: ops.inverse(v),
    "outer_product": lambda ops, v, o: ops.outer_product(v, o),
    "cast": lambda ops, v, dtype: ops.cast(scalar_dtype_name(dtype), v),
}


class CallTranslator:
    def visit_Call(self, node):
        func = self.visit(node.func)
        if isinstance(func, qd_builtins.Builtin) and func.kind == "atomic":
            return self.call_atomic(func, node)
        if isinstance(func, qd_builtins.Builtin) and func.kind == "subscript":  # impl.subscript(b, x, i): x[i]
            return self.visit(extra_builtins.subscript_call_node(self, node))
        static = func is qd_builtins.static
        self.static_depth += static
        try:
            args, kwargs = self.call_arguments(node)
        finally:
            self.static_depth -= static
        func = _PYTHON_EQUIVALENTS.get(func, func) if _hashable(func) else func
        if isinstance(func, qd_builtins.Builtin):
            return self.call_builtin(func, args, kwargs)
        if func is _py_builtins.print:
            return self.call_print(args, kwargs)
        if func in (_py_builtins.all, _py_builtins.any) and len(args) == 1 and not kwargs and \
                isinstance(args[0], VectorValue) and is_runtime(args[0]):  # all(v == w): v.all(), as upstream
            return _VECTOR_METHODS[func.__name__](self.ops, args[0])
        if isinstance(func, VectorMethod) and func.name == "fill":  # v.fill(x): in place, on what v names
            return self.fill_in_place(node, args, kwargs)
        if isinstance(func, VectorMethod):
            return self.call_vector_method(func, args, kwargs)
        if isinstance(func, ViewMethod):  # v.subview(offset, size) (buffer_views.py)
            return self.call_view_method(func, args, kwargs)

        star_error = misplaced_star(node) if isinstance(func, (Func, BoundFunc)) else None
        if star_error:
            raise self.fail(star_error, hint="pass the arguments after the *sequence before it, or put "
                            "them in the sequence.", node=node)
        if isinstance(func, BoundFunc):
            func, args = func.func, [func.instance, *args]
        if isinstance(func, Func) and func.is_real:
            return self.call_real_func(func, args, kwargs)  # real_functions.py
        if isinstance(func, Func):
            return self.inline_func(func, args, kwargs)
        if is_kernel(func):
            raise self.fail("a kernel cannot call another kernel", hint="decorate the callee with @qd.func instead.")
        return self.call_python(func, args, kwargs)

    def call_arguments(self, node):
        args = self.sequence_elements(node.args)  # exprs.py: *seq spreads
        kwargs = {kw.arg: self.visit(kw.value) for kw in node.keywords if kw.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise self.fail("'**' arguments are not supported inside kernels")
        return args, kwargs

    def call_python(self, func, args, kwargs):
        """Classes and functions that are not kernel built-ins: casts, constructors, compile-time calls."""
        if func in (_py_builtins.int, _py_builtins.float, _py_builtins.bool) and len(args) == 1 and not kwargs and \
                not is_runtime(args[0]) and not isinstance(args[0], (ArrayRef, VectorValue)):
            return self.python_op(lambda: func(args[0]))  # float(3) of a compile-time value stays a Python value
        if isinstance(func, _dtypes.DataType):
            return primitive_type_call(self, func, args, kwargs)  # literals.py
        if func in (_py_builtins.int, _py_builtins.float):
            self.expect_arity(func, args, kwargs, 1)
            return self.ops.cast(scalar_dtype_name(func), self.scalar_or_vector(args[0], "a cast"))
        if isinstance(func, VectorType):
            reject_unpacked(func, "instantiate")
            return self.construct_typed_vector(func, args)
        if func is BufferView:  # qd.BufferView(arr, offset, size) of an array parameter (buffer_views.py)
            return self.construct_view(args, kwargs)
        if isinstance(func, StructType) or func is Struct:  # struct_values.py
            return self.construct_struct(func, args, kwargs)
        if func in (Vector, Matrix):
            return self.construct_vector(func, args, kwargs)
        if func in (Matrix.rows, Matrix.cols) and len(args) == 1 and not kwargs and \
                isinstance(args[0], (list, tuple)) and any(is_runtime(a) for a in args[0]):
            return self.matrix_of_vectors(args[0], by_rows=func is Matrix.rows)
        if func is _py_builtins.sum:  # sum() of a list or dict of kernel values adds them (python_builtins.py)
            result = python_sum(self, args, kwargs)
            if result is not NOT_HANDLED:
                return result
        if func is _py_builtins.len and len(args) == 1 and isinstance(args[0], VectorValue):
            return args[0].shape[0]
        if func is _py_builtins.getattr and len(args) == 2 and isinstance(args[0], CompoundRef):
            if not isinstance(args[1], str):
                raise self.fail(f"getattr() needs a compile-time string name, but got {describe(args[1])}", kind="type")
            return self.compound_member(args[0], args[1])
        if getattr(func, "__name__", None) == "format" and isinstance(getattr(func, "__self__", None), str):
            return formatted_text(self, func.__self__, args, kwargs)  # a str, or text with kernel values
        if any(is_runtime(a) or isinstance(a, ArrayRef) for a in list(args) + list(kwargs.values())):
            result = python_builtin_call(self, func, args, kwargs)  # pow(a, b), bool(x), round(x)
            if result is not NOT_HANDLED:
                return result
            if _hashable(func) and func in _OPERATOR_FUNCTIONS and len(args) == 2 and not kwargs:
                return self.binary_op(_OPERATOR_FUNCTIONS[func](), args[0], args[1])
            if inspect.isfunction(func) and _source_available(func):
                # Upstream runs a plain Python function (a lambda too) on kernel values as it traces: here
                # it is inlined like a @qd.func, which computes the same.
                return self.inline_func(_plain_func(func), args, kwargs)
            name = getattr(func, "__name__", repr(func))
            raise self.fail(
                f"'{name}' is a Python function, so it can only be called on compile-time values inside a kernel",
                hint="decorate it with @qd.func to call it on kernel values.",
            )
        if not callable(func):
            raise self.fail(f"{describe(func)} is not callable", kind="type")
        self.reads.call(func, args, kwargs)
        if inspect.isfunction(func):
            return self.call_python_function(func, args, kwargs)
        return self.capture(self.python_op(lambda: func(*args, **kwargs)))

    def call_python_function(self, func, args, kwargs):
        """A plain Python function of compile-time values: run now, as upstream runs it while tracing, unless it does
        kernel work (a kernel built-in, a @qd.func, a field element: KernelScopeError), which it then does as kernel
        code, inlined like a @qd.func (base/python_scope.py)."""
        def run():
            with python_scope.compile_time_call():
                return func(*args, **kwargs)

        try:
            return self.capture(self.python_op(run, scope_errors=True))
        except KernelScopeError as exc:
            if not _source_available(func):
                raise self.fail(f"evaluating this expression at compile time failed: {exc}", kind="type") from None
            return self.inline_func(_plain_func(func), args, kwargs)

    def fill_in_place(self, node, args, kwargs):
        """`v.fill(x)`: every entry of the vector/matrix that `v` names (a local, an array or field element) set to x."""
        if len(args) != 1 or kwargs:
            raise self.fail(f".fill() takes one value, but got {len(args) + len(kwargs)}", kind="type")
        self.store(self.lvalue(node.func.value), self.scalar(args[0], "the value of .fill()"))

    def matrix_of_vectors(self, vectors, by_rows):
        """qd.Matrix.rows([...]) / qd.Matrix.cols([...]) of kernel vectors (or lists of scalars)."""
        lines = []
        for v in vectors:
            if isinstance(v, VectorValue) and not v.is_matrix:
                lines.append(list(v.entries))
            elif isinstance(v, (list, tuple)):
                lines.append([self.scalar(x, "an entry of qd.Matrix.rows()/cols()") for x in v])
            else:
                raise self.fail(f"qd.Matrix.{'rows' if by_rows else 'cols'}() takes vectors, but got {describe(v)}",
                                kind="type")
        if len({len(line) for line in lines}) != 1:
            raise self.fail(f"qd.Matrix.{'rows' if by_rows else 'cols'}() needs vectors of one length, but got "
                            f"lengths {[len(line) for line in lines]}", kind="type")
        if not by_rows:
            lines = [list(column) for column in zip(*lines)]
        return VectorValue([x for line in lines for x in line], (len(lines), len(lines[0])))

    def expect_arity(self, func, args, kwargs, count):
        if len(args) != count or kwargs:
            name = getattr(func, "name", getattr(func, "__name__", repr(func)))
            raise self.fail(f"{name}() takes {count} positional argument(s), but got {len(args)}", kind="type")

    def scalar_or_vector(self, value, what):
        if isinstance(value, (Expr, VectorValue)) or is_number(value):
            return value
        raise self.fail(f"{what} needs a scalar or vector, but got {describe(value)}", kind="type")

    def call_builtin(self, func, args, kwargs):
        kind = func.kind
        if kind == "unary":
            return self.call_unary(func, args, kwargs)
        if kind == "binary":
            if len(args) < 2 or kwargs or (func.op not in ("min", "max") and len(args) != 2):
                raise self.fail(f"qd.{func.name}() takes 2 arguments, but got {len(args)}", kind="type")
            result = args[0]
            for arg in args[1:]:
                result = self.checked(lambda r=result, a=arg: self.ops.bin(func.op, r, a))
            return result
        if kind == "cast":
            if len(args) != 2 or kwargs:
                raise self.fail(f"qd.cast(x, dtype) takes 2 arguments, but got {len(args)}", kind="type")
            return self.ops.cast(self.dtype_argument(args[1]), self.scalar_or_vector(args[0], "qd.cast()"))
        if kind == "bit_cast":
            if len(args) != 2 or kwargs:
                raise self.fail(f"qd.bit_cast(x, dtype) takes 2 arguments, but got {len(args)}", kind="type")
            return self.ops.bit_cast(self.dtype_argument(args[1]), self.scalar_or_vector(args[0], "qd.bit_cast()"))
        if kind == "static":
            leaves = [self.scalar_leaf_labels[a.text] for a in args if isinstance(a, Expr) and a.text in
                      self.scalar_leaf_labels]
            if leaves:
                raise self.fail(f"qd.static() arguments must be compile-time constants, but '{leaves[0]}' is a runtime "
                                "kernel argument", kind="type",
                                hint="members of a dataclass annotated with a dtype, and the numbers of a "
                                "data_oriented(template_primitives=False) class, are read at every call; annotate "
                                "the member qd.template() or drop template_primitives=False to bake it.")
            if any(is_runtime(a) for a in args):
                raise self.fail("qd.static() arguments must be compile-time constants, but got a kernel value",
                                hint="pass Python constants, template arguments or closure variables.")
            return args[0] if len(args) == 1 else tuple(args)
        if kind in ("static_assert", "static_print"):  # compile-time only (stmts.py)
            return self.static_assert(args, kwargs) if kind == "static_assert" else self.static_print(args, kwargs)
        if kind == "ndrange":
            return self.python_op(lambda: qd_builtins.NdRange(*args, **kwargs))
        if kind == "grouped":
            return self.call_grouped(func, args, kwargs)
        if kind == "select":
            self.expect_arity(func, args, kwargs, 3)
            return self.select(*args)
        if kind == "random":
            return self.call_random(args, dict(kwargs))
        if kind == "randn":
            return self.call_randn(args, dict(kwargs))
        if kind == "loop_config":
            self.pending_loop_config = self.loop_config_from(kwargs)
            self.pending_loop_name = kwargs.get("name")
            return None
        if kind in extra_builtins.KINDS:
            return extra_builtins.translate(self, func, args, kwargs)
        try:
            inspect.signature(func.impl).bind(self.ops, *args, **kwargs)
        except TypeError as exc:
            raise self.fail(f"wrong arguments for qd.{func.name}(): {exc}", kind="type") from None
        return func.impl(self.ops, *args, **kwargs)

    def call_unary(self, func, args, kwargs):
        """qd.sqrt(x) and friends; qd.floor/ceil/round(x, dt) also cast the result, as in Taichi."""
        takes_dtype = func.op in ("floor", "ceil", "round")
        dtype = kwargs.pop("dt", None) if takes_dtype else None
        if takes_dtype and len(args) == 2 and dtype is None:
            args, dtype = args[:1], args[1]
        self.expect_arity(func, args, kwargs, 1)
        result = self.checked(lambda: self.ops.un(func.op, self.scalar_or_vector(args[0], f"qd.{func.name}()")))
        return result if dtype is None else self.ops.cast(self.dtype_argument(dtype), result)

    def call_grouped(self, func, args, kwargs):
        self.expect_arity(func, args, kwargs, 1)

        if not isinstance(args[0], (ArrayRef, StructField, qd_builtins.NdRange, SNode)):
            raise self.fail(f"qd.grouped() needs an ndarray, a field or qd.ndrange(...), but got {describe(args[0])}",
                            kind="type")
        return qd_builtins.Grouped(args[0])

    def select(self, cond, a, b):
        """qd.select(cond, a, b): elementwise for a vector condition, a scalar condition picks whole vectors."""
        if not isinstance(cond, VectorValue):
            if not is_runtime(cond):
                return a if cond else b
            return self.ops.select(self.scalar(cond, "qd.select()'s condition"),
                                   self.scalar_or_vector(a, "qd.select()"), self.scalar_or_vector(b, "qd.select()"))
        a, b = self.entries_like(a, cond), self.entries_like(b, cond)
        return VectorValue([self.ops.select(c, x, y) for c, x, y in zip(cond.entries, a, b)], cond.shape)

    def entries_like(self, value, like):
        """The entries of `value` matched to the vector `like`: its own (same shape), or one scalar repeated."""
        if isinstance(value, VectorValue):
            if value.shape != like.shape:
                raise self.fail(f"qd.select() needs branches shaped like its condition ({describe(like)}), but got "
                                f"{describe(value)}", kind="type")
            return self.materialize_value(value).entries
        return [self.materialize_value(self.scalar(value, "a qd.select() branch"))] * len(like.entries)

    def call_print(self, args, kwargs):
        """print(...) in a kernel: Python's layout (sep=' ', end='\\n'), vectors as [a, b], one printf per call."""
        unknown = set(kwargs) - {"sep", "end"}
        if unknown:
            raise self.fail(f"print() inside a kernel takes only sep= and end=, but got {', '.join(sorted(unknown))}",
                            kind="type")
        sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
        for name, value in (("sep", sep), ("end", end)):
            if not isinstance(value, str):
                raise self.fail(f"print()'s {name}= must be a constant string, but got {describe(value)}", kind="type")
        items = []
        for k, arg in enumerate(args):
            if k:
                items.append(sep)
            self.print_items(arg, items)
        items.append(end)
        self.builder.emit("print " + " ".join(print_item_text(self.ops, item) for item in merged_print_items(items)))

    def print_items(self, value, items, spec=""):
        if isinstance(value, str):
            items.append(value)
        elif isinstance(value, FormattedText):
            for part in value.parts:
                self.print_items(part, items)
        elif isinstance(value, SpecValue):  # the spec applies to each entry of a vector or matrix
            self.print_items(value.value, items, value.spec)
        elif isinstance(value, VectorValue):
            rows = [value.row(i) for i in range(value.shape[0])] if value.is_matrix else value.entries
            items.append("[")
            for k, row in enumerate(rows):
                if k:
                    items.append(", ")
                self.print_items(row, items, spec)
            items.append("]")
        elif isinstance(value, (list, tuple)):  # print([a, b]) as Python would: [a, b]
            items.append("[" if isinstance(value, list) else "(")
            for k, item in enumerate(value):
                if k:
                    items.append(", ")
                self.print_items(item, items, spec)
            items.append("]" if isinstance(value, list) else (",)" if len(value) == 1 else ")"))
        elif isinstance(value, Expr) or is_number(value):
            text = self.materialize(value) if isinstance(value, Expr) else value
            items.append(SpecValue(text, spec) if spec else text)
        else:
            raise self.fail(f"print() inside a kernel can show strings, scalars, vectors and matrices, but got "
                            f"{describe(value)}", kind="type",
                            hint="print an element (x[i]) or a value computed from it instead.")

    def dtype_argument(self, dtype):
        try:
            return scalar_dtype_name(dtype)
        except TypeError:
            raise self.fail(f"expected a dtype such as qd.f32, but got {describe(dtype)}", kind="type") from None

    def loop_config_from(self, kwargs):
        # name= (upstream names the GPU kernel of a top-level loop with it, for profiling) has no effect here but the
        # warning upstream gives for a name it drops (loops.py); parallelize=1 is serialize=True
        # and a larger thread count is a hint the CPU thread pool does not take. block_dim_adaptive (upstream's CPU
        # backend: whether the block size may grow with the loop) is a hint too: the pool sizes its own chunks.
        # bit_vectorize (upstream: a struct-for over 1-bit quant_array fields handles a word of elements at a time)
        # is an optimization with the same results; here each element is read and written through its word.
        unknown = set(kwargs) - {"serialize", "block_dim", "name", "parallelize", "block_dim_adaptive", "bit_vectorize"}
        if unknown:
            raise self.fail(f"qd.loop_config() got unexpected argument(s) {', '.join(sorted(unknown))}",
                            hint="it takes serialize=, block_dim=, block_dim_adaptive=, bit_vectorize=, parallelize= "
                                 "and name=.")
        if not isinstance(kwargs.get("block_dim_adaptive", True), bool):
            raise self.fail("qd.loop_config(block_dim_adaptive=...) must be True or False, but got "
                            f"{kwargs['block_dim_adaptive']!r}", kind="type")
        if kwargs.get("name") is not None and not isinstance(kwargs["name"], str):
            raise self.fail(f"qd.loop_config(name=...) must be a str, but got {kwargs['name']!r}", kind="type")
        block_dim = kwargs.get("block_dim") or 0
        if not isinstance(block_dim, int) or block_dim < 0:
            raise self.fail(f"qd.loop_config(block_dim=...) must be a non-negative int, but got {block_dim!r}",
                            kind="type")
        return bool(kwargs.get("serialize", False)) or kwargs.get("parallelize") == 1, block_dim

    def call_atomic(self, func, node):
        if func.op == "cas":
            return self.call_atomic_cas(node)
        if len(node.args) != 2 or node.keywords:
            raise self.fail(f"qd.{func.name}(x, value) takes 2 arguments", kind="type")
        target = self.lvalue(node.args[0], operand_of=func.name)
        value = self.visit(node.args[1])
        return self.atomic_update(func.op, target, value)

    def call_atomic_cas(self, node):
        """qd.atomic_cas(x, expected, desired): stores desired where x equals expected; returns the old x."""
        if len(node.args) != 3 or node.keywords:
            raise self.fail("qd.atomic_cas(x, expected, desired) takes 3 arguments", kind="type")
        target = self.lvalue(node.args[0], operand_of="atomic_cas")
        if isinstance(target, (VectorTarget, SharedTarget)):
            raise self.fail("qd.atomic_cas() takes a scalar array element or local as its target, but got "
                            f"{'a vector or matrix' if isinstance(target, VectorTarget) else 'a shared array element'}",
                            kind="type", hint="compare and swap one entry at a time.")
        expected = self.ops.text(self.scalar(self.visit(node.args[1]), "the expected value of qd.atomic_cas()"))
        desired = self.ops.text(self.scalar(self.visit(node.args[2]), "the desired value of qd.atomic_cas()"))
        text = f"{expected} {desired}"  # the IR's (atomic cas TARGET EXPECTED VALUE)
        if isinstance(target, (SelectTarget, QuantTarget)):
            return target.emit_atomic(self, "cas", text)
        return Expr(target.atomic_head("cas", text), side_effect=True)

    def call_vector_method(self, method, args, kwargs):
        impl = _VECTOR_METHODS.get(method.name)
        if impl is None:
            raise self.fail(f"{describe(method.vector)} has no method '{method.name}'", kind="type")
        try:  # binding only: the method's own errors (QuadrantsTypeError is a TypeError) pass unwrapped
            inspect.signature(impl).bind(self.ops, method.vector, *args, **kwargs)
        except TypeError as exc:
            raise self.fail(f"wrong arguments for .{method.name}(): {exc}", kind="type") from None
        return impl(self.ops, method.vector, *args, **kwargs)

    def construct_vector(self, cls, args, kwargs):
        dtype = kwargs.pop("dt", None)
        if len(args) == 2 and dtype is None:  # qd.Vector([1, 2, 3], qd.f32), as upstream's (arr, dt=None)
            args, dtype = args[:1], args[1]
        if len(args) != 1 or kwargs or not isinstance(args[0], (list, tuple, VectorValue)):
            raise self.fail(f"qd.{cls.__name__}() takes a list of values and optionally a dtype, e.g. "
                            f"qd.{cls.__name__}([x, y, z], qd.f32)", kind="type")
        rows = args[0].entries if isinstance(args[0], VectorValue) else list(args[0])
        if rows and all(isinstance(r, (list, tuple)) for r in rows):
            entries = [self.scalar(x, "a matrix entry") for row in rows for x in row]
            if any(len(r) != len(rows[0]) for r in rows):
                raise self.fail("every row of a qd.Matrix must have the same length", kind="type")
            value = VectorValue(entries, (len(rows), len(rows[0])))
        else:
            value = VectorValue([self.scalar(x, "a vector entry") for x in rows], (len(rows),))
        return value if dtype is None else self.ops.cast(self.dtype_argument(dtype), value)

    def construct_typed_vector(self, vector_type, args):
        """vec3(x, y, z), vec4(v3, w) or vec3(0): scalars and vectors are concatenated, one scalar broadcast."""
        entries = []
        for arg in _flat_items(args):  # vec3([x, y, z]) and mat2([[a, b], [c, d]]) too
            entries.extend(arg.entries if isinstance(arg, VectorValue) else [self.scalar(arg, "a vector entry")])
        size = 1
        for extent in vector_type.shape:
            size *= extent
        if len(entries) == 1:
            entries = entries * size
        if len(entries) != size:
            raise self.fail(f"{vector_type!r} needs {size} values, but got {len(entries)}", kind="type")
        dtype = self.default_fp if vector_type.dtype is None else scalar_dtype_name(vector_type.dtype)
        return self.ops.cast(dtype, VectorValue(entries, vector_type.shape))

def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True



def _flat_items(items):
    """Lists and tuples among constructor arguments, flattened: their items count one by one."""
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flat_items(item)
        else:
            yield item
