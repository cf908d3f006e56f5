# python/quadrants/frontend/exprs.py: translation of expressions: names, operators, comparisons, indexing, attributes.
import ast
import operator

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsCompilationError, QuadrantsTypeError, QuadrantsValueError
from quadrants.base.python_scope import KernelScopeError
from quadrants.base.swizzles import out_of_range_message, swizzle_indices
from quadrants.data.matrix import Matrix, Vector
from quadrants.frontend.buffer_views import ViewValue
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.component_refs import ComponentsRef, members_element
from quadrants.frontend.compound_params import CompoundRef
from quadrants.frontend.dynamic_index import DynamicIndexing, ElementLoad
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.matrix_slices import has_slice, reject_negative, sliced
from quadrants.frontend.print_format import field_value, has_kernel_values, percent_formatted
from quadrants.frontend.quant_access import QuantRef, quant_element
from quadrants.frontend.simt_values import SharedArray
from quadrants.frontend.sparse_access import FieldRef, field_attribute, field_subscript, list_method, shift_indices
from quadrants.frontend.struct_values import StructField, StructVar, is_struct
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
from quadrants.frontend.vector_ops import MATRIX_CONSTRUCTORS, describe, is_number
from quadrants.types.unpacked import UnpackedGroup

BINARY_OPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "shl", ast.RShift: "shr", ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or", ast.BitXor: "bit_xor",
}
_PYTHON_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.MatMult: operator.matmul,
}
_COMPARE_OPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_PYTHON_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_ERROR_KINDS = {QuadrantsTypeError: "type", QuadrantsValueError: "value"}


def element_index_parts(index, shape):
    """The per-axis parts of a vector/matrix index: m[i, j], or m[I] with I a vector of one entry per axis
    (a qd.grouped index), as upstream takes it."""
    if isinstance(index, tuple):
        return list(index)
    if isinstance(index, VectorValue) and not index.is_matrix and index.shape == (len(shape),):
        return list(index.entries)
    return [index]


class VectorMethod:
    """`v.norm` before the call: the translator calls it with the vector ops."""

    def __init__(self, vector, name):
        self.vector = vector
        self.name = name


class ExprTranslator(DynamicIndexing):
    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        binding = self.lookup_binding(node.id)
        if binding is None:
            return self.resolve_name(node.id)
        if isinstance(binding, LocalVar):
            return Expr(f"(var {binding.name})")
        if isinstance(binding, ParamVar):
            return Expr(f"(arg {binding.name})")
        if isinstance(binding, VectorVar):
            return VectorValue([Expr(f"(var {name})") for name in binding.names], binding.shape)
        if isinstance(binding, StructVar):
            return self.struct_var_value(binding)
        assert isinstance(binding, StaticBinding), "visit_Name(): unknown binding kind"
        return binding.value

    def visit_JoinedStr(self, node):
        """f"...": a str when every part is known at compile time, else text with kernel values for print()."""
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
                continue
            value = self.visit(part.value)
            spec = self.visit(part.format_spec) if part.format_spec is not None else ""
            if not isinstance(spec, str):
                raise self.fail("a format spec must be known at compile time", kind="type")
            conversion = None if part.conversion == -1 else chr(part.conversion)
            parts.append(field_value(self, value, spec, conversion))
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)
        return FormattedText(parts)

    def visit_Tuple(self, node):
        return tuple(self.sequence_elements(node.elts))

    def sequence_elements(self, elements):
        """The values of a tuple's, list's or call's elements; `*seq` spreads a compile-time sequence or a vector's
        entries (`a[(*I, j)]` with I from qd.grouped), as in Python."""
        values = []
        for element in elements:
            if not isinstance(element, ast.Starred):
                values.append(self.visit(element))
                continue
            expanded = self.visit(element.value)
            if is_runtime(expanded) and not isinstance(expanded, VectorValue):
                raise self.fail("only compile-time sequences and vectors can be unpacked with *", kind="type")
            values.extend(expanded.entries if isinstance(expanded, VectorValue) else expanded)
        return values

    def visit_Slice(self, node):
        """`a:b:c` in an index: a Python slice of the translated bounds (matrix_slices.py checks them)."""
        return slice(*(None if part is None else self.visit(part) for part in (node.lower, node.upper, node.step)))

    def visit_List(self, node):
        return self.sequence_elements(node.elts)

    def visit_ListComp(self, node):
        """[f(x) for x in seq if c]: unrolled at compile time, so seq and c must be known then (f(x) need not)."""
        results = []
        self.unroll_comprehension(node.elt, node.generators, results)
        return results

    visit_GeneratorExpr = visit_ListComp  # a list too: qd.Vector(x * 2 for x in ...) needs its items at once

    def visit_DictComp(self, node):
        """{k: v for x in seq if c}: unrolled at compile time like a list comprehension. A kernel value as a key
        is that value object itself, as upstream's Expr keys hash by identity: only the same value finds it, so
        such a dict is for .values() and .items(), while compile-time keys look up as in Python."""
        pairs = []
        self.unroll_comprehension(node, node.generators, pairs, self.dict_entry)
        return dict(pairs)

    def dict_entry(self, node):
        return self.visit(node.key), self.visit(node.value)

    def unroll_comprehension(self, elt, generators, results, make=None):
        """Appends make(elt) (default: elt's value) for each combination of the generators' items."""
        if not generators:
            results.append(make(elt) if make else self.visit(elt))
            return
        generator = generators[0]
        iterable = self.visit(generator.iter)
        if isinstance(iterable, VectorValue) and not iterable.is_matrix:
            items = iterable.entries
        elif isinstance(iterable, VectorValue):  # a matrix, as in upstream: its rows, as vectors
            items = [iterable.row(i) for i in range(iterable.shape[0])]
        elif is_runtime(iterable):
            raise self.fail(f"a comprehension inside a kernel iterates at compile time, so it cannot iterate "
                            f"over {describe(iterable)}", kind="type")
        else:
            items = self.python_op(list, iterable)
        for item in items:
            self.push_scope()
            try:
                self.bind_static_target(generator.target, item)
                conditions = [self.visit(cond) for cond in generator.ifs]
                if any(is_runtime(c) for c in conditions):
                    raise self.fail("the conditions of a comprehension inside a kernel must be known at compile time",
                                    kind="type", hint="use qd.select(...) or an if statement for kernel values.")
                if all(conditions):
                    self.unroll_comprehension(elt, generators[1:], results, make)
            finally:
                self.pop_scope()

    def visit_BinOp(self, node):
        return self.binary_op(node.op, self.visit(node.left), self.visit(node.right))

    def binary_op(self, op, left, right):
        """`left op right` for an ast operator instance: also operator.add(a, b) and friends (calls.py)."""
        left, right = _list_as_vector(left, right)
        op_type = type(op)
        if isinstance(left, ArrayRef) or isinstance(right, ArrayRef):  # a whole field or ndarray: not a value
            symbol = ast.unparse(ast.BinOp(ast.Name("a"), op, ast.Name("b")))[2:-2]
            raise self.fail(f"Operator '{symbol}': unsupported operand type(s) for '{symbol}': {describe(left)} and "
                            f"{describe(right)}",
                            kind="type", hint="index an array to use its elements, e.g. x[i].")
        if isinstance(op, ast.MatMult) and (is_runtime(left) or is_runtime(right)):
            return self.ops.matmul(left, right)
        if isinstance(op, ast.Mod) and isinstance(left, str) and has_kernel_values(right):
            return percent_formatted(self, left, right)  # "x = %d" % x: text for print() and assert
        if is_runtime(left) or is_runtime(right) or (is_number(left) and is_number(right)):
            return self.checked(lambda: self.ops.bin(BINARY_OPS[op_type], left, right))
        return self.python_op(_PYTHON_BINARY[op_type], left, right)

    def visit_UnaryOp(self, node):
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        op = {ast.USub: "neg", ast.Not: "not", ast.Invert: "bit_not"}[type(node.op)]
        if is_runtime(operand) or is_number(operand):
            return self.checked(lambda: self.ops.un(op, operand))
        python_op = {ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}[type(node.op)]
        return self.python_op(python_op, operand)

    def visit_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not is_runtime(result):
                # A compile-time left side short-circuits exactly as in Python.
                if (op == "and") != bool(result):
                    return result
                result = self.visit(value_node)
                continue
            result = self._logical(op, result, self.visit(value_node))
        return result

    def _logical(self, op, left, right):
        """As upstream: on scalars Python's value semantics (`a and b` is b if a is nonzero, else a; `a or b` is a
        if a is nonzero, else b: `1 and 2` is 2); on vectors elementwise 0/1 truth values. Both sides are evaluated."""
        left, right = self.materialize_value(left), self.materialize_value(right)
        if isinstance(left, VectorValue) or isinstance(right, VectorValue):
            return self.ops._elementwise(lambda a, b: self.ops.bin(op, self.ops.bin("ne", a, 0),
                                                                   self.ops.bin("ne", b, 0)), left, right, op)
        left, right = self.scalar(left, op), self.scalar(right, op)
        if _is_truth_value(left) and _is_truth_value(right):  # both 0/1: the value rule is the logical op
            return self.ops.bin(op, left, right)
        left = self.bind_once(left)  # read twice below
        truthy = self.ops.bin("ne", left, 0)
        return self.ops.select(truthy, right, left) if op == "and" else self.ops.select(truthy, left, right)

    def bind_once(self, value):
        """A kernel value read more than once: a temporary unless it is already a name or a constant."""
        if not isinstance(value, Expr) or value.text.startswith(("(arg ", "(var ", "(const ")):
            return value
        name = self.names.fresh("_t")
        self.builder.emit(f"decl {name} {value.text}")
        return Expr(f"(var {name})")

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        left_node = node.left
        for op_node, right_node in zip(node.ops, node.comparators):
            self.check_identity_compare(op_node, left_node, right_node)
            left_node = right_node
            left, right = _list_as_vector(left, self.visit(right_node))  # v == [1, 0, 1]: elementwise
            if (is_runtime(left) or is_runtime(right)) and isinstance(op_node, (ast.Is, ast.IsNot)) and \
                    (left is None or right is None):  # a kernel value is never None (plain Python functions)
                term = isinstance(op_node, ast.IsNot)
            elif is_runtime(left) or is_runtime(right):
                if type(op_node) not in _COMPARE_OPS:
                    raise self.fail(
                        f"'{type(op_node).__name__}' comparisons need compile-time operands",
                        hint="use ==, !=, <, <=, > or >= on kernel values.",
                    )
                right = self.materialize_value(right)
                term = self.ops.bin(_COMPARE_OPS[type(op_node)], left, right)
            else:
                term = self.python_op(_PYTHON_COMPARE[type(op_node)], left, right)
            result = term if result is None else self._and(result, term)
            left = right
        return result

    def check_identity_compare(self, op_node, left_node, right_node):
        """Upstream's rules for `in`, `not in`, `is`, `is not` in kernels and @qd.funcs: `in` only inside
        qd.static(...), and `is` only there, between a kernel's own template/qd.Tensor parameter and None (the
        presence test of an optional argument). Plain Python functions inlined on kernel values keep Python's."""
        if self.ctx.plain_python:
            return
        name = {ast.Is: "is", ast.IsNot: "is not"}.get(type(op_node))
        if name is None:
            if isinstance(op_node, (ast.In, ast.NotIn)) and not self.static_depth:
                raise self.fail(f'"{type(op_node).__name__}" is only supported inside `qd.static`.',
                                hint="wrap the test in qd.static(...) when its operands are known at compile time.")
            return
        if not self.static_depth:
            raise self.fail(f'Operator "{name}" in Quadrants scope is not supported.',
                            hint=f"compare kernel values with == or !=; `qd.static(arg {name} None)` tests an "
                            "optional template argument.")
        if isinstance(right_node, ast.Constant) and right_node.value is None:
            param = left_node
        elif isinstance(left_node, ast.Constant) and left_node.value is None:
            param = right_node
        else:
            param = None
        bindings = self.ctx.template_bindings
        if not (self.ctx.is_kernel and isinstance(param, ast.Name) and not param.id.startswith("__qd_") and
                param.id in bindings and self.lookup_binding(param.id) is bindings[param.id]):
            raise self.fail(f'Operator "{name}" inside `qd.static` requires a direct `qd.template()` or `qd.Tensor` '
                            "kernel argument and `None`.",
                            hint="compare other compile-time values with == or !=.")

    def _and(self, a, b):
        if not is_runtime(a):
            return b if a else a
        return self.ops.bin("and", a, b)

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not is_runtime(cond):
            return self.visit(node.body if cond else node.orelse)
        if isinstance(cond, VectorValue):  # upstream's error (a syntax error) and wording
            raise self.fail(f"The condition of 'a if c else b' is {describe(cond)}, but a conditional expression "
                            "does not select per element. Please use \"qd.select\" instead.",
                            hint="qd.select(c, a, b) takes a from a where c's entry is nonzero, else from b.")
        cond = self.scalar(cond, "the condition of 'a if c else b'")
        body, orelse = self.visit(node.body), self.visit(node.orelse)
        if isinstance(body, (tuple, list)) and isinstance(orelse, (tuple, list)):  # (i, j) if c else (j, i)
            if len(body) != len(orelse):
                raise self.fail(f"the two sides of 'a if c else b' have {len(body)} and {len(orelse)} items; a "
                                "runtime condition needs them of one length", kind="type")
            cond = self.materialize(cond) if isinstance(cond, Expr) else cond
            return tuple(self.ops.select(cond, a, b) for a, b in zip(body, orelse))
        return self.ops.select(cond, body, orelse)

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        attr = node.attr
        if isinstance(base, CompoundRef):  # a dataclass or data_oriented argument (translator.py)
            return self.compound_member(base, attr)
        if isinstance(base, ViewValue):  # v.size, v.shape, v.subview (buffer_views.py)
            return self.view_attribute(base, attr)
        if isinstance(base, StructField) and attr in ("append", "length", "deactivate"):
            base = self.global_array(next(iter(base._leaves()))[1])  # a struct field's 1-d list is its members'
        if is_struct(base):  # a struct value or a Python-scope qd.Struct (struct_values.py)
            return self.struct_member(base, attr)
        if isinstance(base, FieldRef) and attr != "shape":  # x.parent(), y.append ... (sparse_access.py)
            return field_attribute(self, base, attr)
        method = list_method(self, base, attr)  # x[i].append(v) on a dynamic list
        if method is not None:
            return method
        if isinstance(base, ArrayRef):
            if attr in ("grad", "dual") and base.path is not None:  # translator.py
                return self.array_twin(base, attr)
            if attr == "shape":
                if base.static_shape is not None:
                    return base.static_shape
                return tuple(Expr(f"(shape {base.name} {k})") for k in range(base.ndim))
            raise self.fail(f"array '{base.label}' has no attribute '{attr}' inside kernels", kind="type",
                            hint="arrays offer indexing x[i, j] and x.shape[k].")
        if isinstance(base, VectorValue):
            return self.vector_attribute(base, attr)
        if isinstance(base, Expr):
            raise self.fail(f"a scalar value has no attribute '{attr}'", kind="type")
        constructor = self.matrix_constructor(base, attr)
        if constructor is not None:
            return constructor
        try:
            value = getattr(base, attr)
        except AttributeError:
            raise self.fail(f"{describe(base)} has no attribute '{attr}'", kind="type") from None
        self.reads.attribute(base, attr, value)
        if self.purity is not None:
            self.purity.attribute(self, base, attr, value)
        return self.capture(value)

    def matrix_constructor(self, cls, attr):
        """qd.Vector.zero, qd.Matrix.identity ...: kernel built-ins that the Python classes need not define."""
        if cls is not Vector and cls is not Matrix:
            return None
        impl = MATRIX_CONSTRUCTORS.get((cls.__name__, attr))
        if impl is None:
            return None
        return Builtin(f"{cls.__name__}.{attr}", kernel_only(f"{cls.__name__}.{attr}"), "composite", impl=impl)

    def vector_attribute(self, vector, attr):
        if attr == "n":
            return vector.shape[0]
        if attr == "m":
            return vector.shape[1] if vector.is_matrix else 1
        if attr == "T":
            return self.ops.transpose(vector)
        indices = None if vector.is_matrix else swizzle_indices(attr)
        if indices is not None:
            if max(indices) >= vector.shape[0]:
                raise self.fail(out_of_range_message(attr, vector.shape[0]))  # upstream's QuadrantsSyntaxError
            if len(indices) == 1:
                return vector.entries[indices[0]]
            return VectorValue([vector.entries[i] for i in indices], (len(indices),))
        return VectorMethod(vector, attr)

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        if isinstance(base, ViewValue):  # v[i], v[a:b] of a qd.BufferView (buffer_views.py)
            index = self.visit(node.slice)
            if isinstance(node.slice, ast.Slice) or isinstance(index, slice):
                return self.view_slice(base, index)
            return self.array_element(base.array, self.view_index(base, index))
        if isinstance(base, ArrayRef) and isinstance(node.slice, ast.Slice):  # arr[a:b]: a view; tiles take 2 slices
            return self.array_slice(base, self.visit(node.slice))
        sliced = registry.get("tile_syntax").slice_value(self, base, node.slice)  # a[r0:r1, c0:c1] for tiles
        if sliced is not None:
            return sliced
        index = self.visit(node.slice)
        if isinstance(base, (FieldRef, StructField)):  # x[i] of a field over dynamic lists: the list (sparse_access.py)
            found = field_subscript(self, base, index)
            if found is not None:
                return found
        if isinstance(base, ArrayRef):
            return self.array_element(base, index)
        if isinstance(base, SharedArray):  # qd.simt.block.SharedArray (simt/_ir.py)
            return base.load(self, index)
        if isinstance(base, StructField):
            return self.struct_field_element(base, index, node.value)
        if isinstance(base, VectorValue):
            return self.vector_element(base, index)
        if isinstance(base, UnpackedGroup):  # s.r[i] of an unpacked vector member (unpacked.py)
            return base.entry(index, self.fail)
        if is_runtime(index):
            raise self.fail(f"{describe(base)} can only be indexed with compile-time values", kind="type",
                            hint="use a constant index, or unroll the loop with qd.static(range(...)).")
        return self.capture(self.python_op(operator.getitem, base, index))  # np.int32 of a numpy array: an int

    def array_indices(self, array, index):
        """The IR texts of the outer indices of `array[index]` (a tuple, a vector, None or a scalar)."""
        parts = self.index_parts(array, index)
        if isinstance(array, FieldRef):  # field offsets (sparse_access.py)
            parts = shift_indices(self, array, [self.scalar(part, "an array index") for part in parts])
        texts = [self.ops.text(self.scalar(part, "an array index")) for part in parts]
        if getattr(array, "clamp", False):  # boundary="clamp": into [0, extent - 1], dim by dim
            texts = [f"(bin min (bin max {t} (const int 0)) (bin sub (shape {array.name} {d}) (const int 1)))"
                     for d, t in enumerate(texts)]
        return texts

    def index_parts(self, array, index):
        """The outer indices of `array[index]` as values (one per dim of the array, checked)."""
        if index is None:
            parts = []
        elif isinstance(index, VectorValue) and not index.is_matrix:
            parts = index.entries
        elif isinstance(index, (tuple, list)):  # index vectors and tuples inside it count one index per entry
            parts = _flat_index(index)
        else:
            parts = [index]
        if len(parts) != array.ndim:
            raise self.fail(
                f"array '{array.label}' has {array.ndim} dimension(s) but was indexed with {len(parts)} index(es)",
                kind="type",
                hint="index every outer dimension at once, e.g. x[i, j] for a 2-d array.",
            )
        return [self.scalar(part, "an array index") for part in parts]

    def array_element(self, array, index):
        if isinstance(array, ComponentsRef):
            return members_element(self, array, index)
        if isinstance(array, QuantRef):  # a quantized field: unpacked from its word (quant_access.py)
            return quant_element(self, array, index)
        indices = self.array_indices(array, index)
        if not array.element_shape:
            return Expr(f"(load {array.name} ({' '.join(indices)}) ())")
        # ElementLoads, so that a runtime index into the element merges into one load (dynamic_index.py).
        clamp_shape = array.element_shape if getattr(array, "clamp", False) else None
        entries = [ElementLoad(array.name, indices, e, clamp_shape) for e in element_indices(array.element_shape)]
        return VectorValue(entries, array.element_shape)

    def vector_element(self, vector, index):
        parts = element_index_parts(index, vector.shape)
        if has_slice(parts):  # m[i, :], v[1:] ... (matrix_slices.py)
            return sliced(self, vector.shape, parts, lambda index: self.vector_element(vector, index), VectorValue)
        self.check_index_count(vector, parts)
        reject_negative(self, parts)
        if any(isinstance(p, Expr) for p in parts):
            return self.dynamic_vector_element(vector, parts)
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
            raise self.fail(
                f"{describe(vector)} can only be indexed with constant integers, but got {describe(index)}",
                kind="type",
                hint="use a constant index, or unroll the loop with qd.static(range(...)).",
            )
        for axis, p in enumerate(parts):
            if axis >= len(vector.shape) or not -vector.shape[axis] <= p < vector.shape[axis]:
                raise self.fail(f"index {index!r} is out of range for {describe(vector)}", kind="type")
        parts = [p % vector.shape[axis] for axis, p in enumerate(parts)]
        if len(parts) == 2:
            return vector.at(parts[0], parts[1])
        return vector.entries[parts[0]]

    def check_index_count(self, vector, parts):
        """A vector takes one index and a matrix two, as upstream: m[i] is an error (m[i, :] is row i)."""
        count = len(vector.shape)
        if len(parts) != count:
            raise self.fail(f"Expected {count} indices, got {len(parts)}: {describe(vector)} takes {count}",
                            kind="index", hint="index a vector as v[i] and a matrix as m[i, j] (a row: m[i, :]).")

    def scalar(self, value, what):
        """Checks that `value` is a scalar (an IR expression or a number) where `what` needs one."""
        if isinstance(value, Expr) or is_number(value):
            return value
        if isinstance(value, (np.integer, np.floating, np.bool_)):  # a numpy scalar from Python scope: its number
            return value.item()
        raise self.fail(f"{what} must be a scalar, but got {describe(value)}", kind="type")

    def python_op(self, fn, *operands, scope_errors=False):
        """Applies a Python operator to compile-time values, reporting Python's error at the node (a KernelScopeError
        passes through unchanged when scope_errors: the caller translates the function instead)."""
        self.reads.operation(fn, operands)
        try:
            return fn(*operands)
        except KernelScopeError as exc:
            if scope_errors:
                raise
            raise self.fail(f"evaluating this expression at compile time failed: {exc}", kind="type") from None
        except QuadrantsCompilationError as exc:  # a quadrants rule (qd.ndrange's), placed at the node
            if exc.filename is not None or exc.line:
                raise
            raise self.fail(exc.message, hint=exc.hint, kind=_ERROR_KINDS.get(type(exc), "syntax")) from None
        except Exception as exc:  # noqa: BLE001 - any failure here is the user's expression failing
            raise self.fail(f"evaluating this expression at compile time failed: {exc}", kind="type") from None

    def checked(self, fn):
        try:
            return fn()
        except ZeroDivisionError:
            raise self.fail("division by zero in a compile-time constant", kind="type") from None
        except (ValueError, OverflowError) as exc:  # math.sqrt(-1.0), math.exp(1000.0) on constants
            raise self.fail(f"evaluating this constant expression at compile time failed: {exc}", kind="type",
                            hint="compute it from a kernel value to get NaN or inf at run time.") from None


def _flat_index(index):
    """x[f, ijk, b] with ijk an index vector or tuple: the indices of all of them, in order."""
    parts = []
    for p in index:
        if isinstance(p, VectorValue) and not p.is_matrix:
            parts += p.entries
        elif isinstance(p, (tuple, list)):
            parts += _flat_index(p)
        else:
            parts.append(p)
    return parts


def element_indices(element_shape):
    """The element indices of an element shape, row-major: (3,) -> (0,), (1,), (2,)."""
    if len(element_shape) == 1:
        return [(i,) for i in range(element_shape[0])]
    return [(i, j) for i in range(element_shape[0]) for j in range(element_shape[1])]


def _list_as_vector(left, right):
    """A Python list or tuple beside a vector operand is a vector of its entries ((i, j) + offset, v == [1, 0])."""
    if isinstance(left, VectorValue) and isinstance(right, (tuple, list)):
        return left, VectorValue(list(right), (len(right),))
    if isinstance(right, VectorValue) and isinstance(left, (tuple, list)):
        return VectorValue(list(left), (len(left),)), right
    return left, right


_TRUTH_VALUE_HEADS = tuple(f"(bin {op} " for op in ("eq", "ne", "lt", "le", "gt", "ge", "and", "or")) + ("(un not ",)


def _is_truth_value(value):
    """Whether a value is known to be 0 or 1 (a comparison, `not`, a logical op, a bool constant)."""
    if isinstance(value, bool):
        return True
    return isinstance(value, Expr) and value.text.startswith(_TRUTH_VALUE_HEADS)
