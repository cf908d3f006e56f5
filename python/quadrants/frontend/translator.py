# python/quadrants/frontend/translator.py: the AST -> IR translator: state, scopes, name resolution, kernel assembly.
#
# The visitor methods live in three mixins (exprs.py, calls.py, stmts.py); this file holds what they
# share: the function being translated, its scopes, the IR builder and the error helpers.
import ast
import builtins as _py_builtins
import math
import types

import numpy as np

from quadrants.data.buffer_view import BufferView
from quadrants.data.matrix import Matrix
from quadrants.frontend.buffer_views import BufferViewTranslator
from quadrants.frontend.calls import CallTranslator
from quadrants.frontend.checkpoint_translate import CheckpointTranslator
from quadrants.frontend.component_refs import components_ref
from quadrants.frontend.compound_params import CompoundRef, DiscoverLeaves, Leaf, is_runtime_array, member_annotation
from quadrants.frontend.data_oriented import bakes_primitives, is_compound
from quadrants.frontend.exprs import ExprTranslator
from quadrants.frontend.func_calls import FuncCallTranslator
from quadrants.frontend.funcs import BoundFunc, Func
from quadrants.frontend.graph_do_while import GraphDoWhileTranslator
from quadrants.frontend.graph_sections import GraphSectionTranslator
from quadrants.frontend.ir_builder import BlockBuilder, Expr, NameAllocator, Stmt, string_text
from quadrants.frontend.literals import check_default_int
from quadrants.frontend.local_lists import LocalListTranslator
from quadrants.frontend.purity import PurityCheck, is_pure
from quadrants.frontend.quant_access import quant_ref
from quadrants.frontend.random_numbers import RandomTranslator
from quadrants.frontend.read_hooks import NO_HOOKS
from quadrants.frontend.real_functions import RealFunctionTranslator
from quadrants.frontend.source import function_source
from quadrants.frontend.sparse_access import kernel_ref
from quadrants.frontend.sparse_grads import drop_writes
from quadrants.frontend.stmts import StmtTranslator
from quadrants.frontend.stream_parallel import StreamParallelTranslator
from quadrants.frontend.struct_values import StructTranslator, StructValue, is_struct
from quadrants.frontend.templated_floats import check_captured
from quadrants.frontend.tensor_params import ARRAY, unwrap
from quadrants.frontend.values import ArrayRef, LocalVar, StaticBinding, VectorValue, VectorVar
from quadrants.frontend.vector_ops import Ops, describe
from quadrants.types.annotations import NdarrayType, VectorType


class FunctionContext:
    """One Python function being translated: the kernel itself or an inlined @qd.func."""

    def __init__(self, source, is_kernel):
        self.source = source
        self.is_kernel = is_kernel
        self.scopes = [{}]
        self.globals = source.fn.__globals__
        code = source.fn.__code__
        cells = source.fn.__closure__ or ()
        self.closure = {}
        for name, cell in zip(code.co_freevars, cells):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:  # a closure variable not assigned yet
                pass
        self.return_value = None
        self.return_annotation = None
        self.real_function = None  # the _Signature when this is a @qd.real_func's body (real_functions.py)
        self.done_flag = None  # set when a func returns from inside an if or loop (stmts.py)
        self.return_slot = None
        self.plain_python = False  # an inlined plain Python function: `is`/`in` keep Python's meaning there
        self.kernel_params = set()  # a kernel's parameter names, which it cannot assign to (stmts.py)
        self.template_bindings = {}  # a kernel's template/qd.Tensor parameter name -> its binding (exprs.py)
        self.kernel_returned = False  # a kernel's return statement was translated (not one qd.static pruned)


class Translator(ExprTranslator, CallTranslator, FuncCallTranslator, StmtTranslator, RandomTranslator, StructTranslator,
                 RealFunctionTranslator, GraphSectionTranslator, GraphDoWhileTranslator, CheckpointTranslator,
                 StreamParallelTranslator, LocalListTranslator, BufferViewTranslator):
    """Translates one kernel (with its funcs inlined) for one argument specialization."""

    def __init__(self, config):
        self.default_fp = config.default_fp.name
        self.default_ip = config.default_ip.name
        self.config = config
        self.names = NameAllocator()
        self.builder = BlockBuilder()
        self.ops = Ops(self)
        self.ctx = None
        self.node_stack = []
        self.globals = []  # containers used as globals, in IR param order
        self.global_refs = {}  # id(container) -> ArrayRef
        self.line_sources = {}  # file line -> FunctionSource, to place errors raised by C++ passes
        self.loops = []  # kinds of the enclosing loops, innermost last: 'parallel', 'serial'
        # runtime (not qd.static) loops around the code being translated, counted across inlined funcs, which
        # reset `loops`: reverse mode without AD stacks rejects a range() loop nested in one (loops.py)
        self.runtime_loop_depth = 0
        self.top_level = True
        self.parallel_depth = 0
        self.pending_loop_config = None
        self.pending_loop_name = None  # qd.loop_config(name=...) for the next runtime loop (loops.py)
        self.for_loop_depth = 0  # runtime for-loops (not while, not qd.static) around the code being translated
        self.static_depth = 0  # > 0 while the arguments of a qd.static(...) call are translated
        self.inline_stack = []
        self.entered = []  # (FunctionSource, len(node_stack) on entry) of the functions being translated
        self.real_functions = {}  # (func id, static argument keys) -> (_Signature, static values)
        self.real_function_order = []  # the _Signatures in the order they were met
        self.real_function_depth = 0  # > 0 while a real function's body is translated
        self.current_real_function = None  # the _Signature whose body is being translated (real_functions.py)
        self.pending_random_calls = []  # calls inside real functions that may need a random stream
        self.leaves = None  # DiscoverLeaves or PlannedLeaves (compound_params.py)
        self.leaf_values = {}  # path -> the ArrayRef or (arg ...) Expr of a leaf read so far
        self.leaf_texts = {}  # path -> its IR param text
        self.slot_values = {}  # path -> template value (template params, qd.template() dataclass members)
        self.call_values = None  # parameter name -> the call's argument, when translating for a call
        self.scalar_leaf_labels = {}  # "(arg NAME)" of a scalar leaf -> 'obj.member', for error messages
        self.random_key_name = None  # qd.random(): this launch's key, once a call needs it (random_numbers.py)
        self.random_key_text = None
        self.random_scopes = []  # the streams of the enclosing parallel iteration or serial code
        self.kernel_options = {}  # the @qd.kernel(...) options, e.g. graph=True (graph_sections.py)
        # None, "region" or "section": where a qd.graph with statement is (graph_sections.py); "stream_parallel" in
        # a qd.stream_parallel() block (stream_parallel.py)
        self.graph_state = None
        self.while_condition_of = None  # the FunctionContext whose while condition is translated (loops.py)
        self.no_activate_snodes = set()  # SNodes named by qd.no_activate() (no_activate.py)
        self.activated_snodes = set()  # SNodes whose cells a store activates (sparse_access.activate_for_store)
        self.entry_depths = {}  # IR local of a list/tuple/dict entry -> its parallel depth (local_lists.py)
        self.subscript_assigned_cache = {}  # id(function AST) -> (AST, names it assigns through a subscript)
        self.reads = NO_HOOKS  # told of every Python value the translation reads (read_hooks.py)
        self.purity = None  # a PurityCheck while a pure kernel is translated (purity.py)

    # ---- errors ---------------------------------------------------------------------------------
    def fail(self, message, hint=None, kind="syntax", node=None):
        """The user error for the node being translated (return value is meant to be raised), with the call
        of each inlined func on the way there, as upstream shows them."""
        if node is None:
            node = next((n for n in reversed(self.node_stack) if hasattr(n, "lineno")), None)
        return self.ctx.source.error(node, _sentence(message), hint, kind, self.call_sites())

    def call_sites(self):
        """(FunctionSource, call node) for each function entered before the current one: the last node with a
        position that it was translating when the next one was entered."""
        sites = []
        for (source, depth), (_, next_depth) in zip(self.entered, self.entered[1:]):
            node = next((n for n in reversed(self.node_stack[depth:next_depth]) if hasattr(n, "lineno")), None)
            if node is not None:
                sites.append((source, node))
        return sites

    def visit(self, node):
        self.node_stack.append(node)
        try:
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is None:
                raise self.fail(  # upstream's wording first
                    f'Unsupported node "{type(node).__name__}": this Python syntax is not supported inside kernels',
                    hint="kernels support assignments, if/while/for, arithmetic, calls of @qd.func and qd.* functions.",
                )
            return method(node)
        finally:
            self.node_stack.pop()

    # ---- scopes and names -----------------------------------------------------------------------
    def push_scope(self):
        self.ctx.scopes.append({})

    def pop_scope(self):
        self.ctx.scopes.pop()

    def lookup_binding(self, name):
        for scope in reversed(self.ctx.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name, binding):
        self.ctx.scopes[-1][name] = binding

    def resolve_name(self, name):
        """A free name of the function: closure, then globals, then Python's builtins; captured by value."""
        for where, table in (("closure", self.ctx.closure), ("global", self.ctx.globals),
                             ("builtin", _py_builtins.__dict__)):
            if name in table:
                if isinstance(table[name], types.GeneratorType):  # used once, it would be empty at a recompile
                    raise self.fail("Cannot store generators in variables, inside kernels or functions", kind="value",
                                    hint=f"make it a tuple outside the kernel: {name} = tuple(...).")
                self.reads.name(self.ctx.source.fn, where, name, table[name])
                if self.purity is not None:
                    self.purity.name(self, where, name, table[name])
                check_captured(self, name, table[name])  # qd.init(raise_on_templated_floats=True)
                return self.capture(table[name], name)
        raise self.fail(f'name "{name}" is not defined', kind="name")  # upstream's class and wording

    def capture(self, value, py_name=None, label=None):
        """Turns a Python value seen by a kernel into a translated value (fields become globals)."""
        value = unwrap(value)
        if isinstance(value, np.generic) and value.ndim == 0:
            return value.item()
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
            return value.item()  # a 0-d numpy array is a number here, baked in like any captured number
        if hasattr(value, "_array") and hasattr(value, "_element_shape"):
            return self.global_array(value, py_name, label)
        if isinstance(value, BufferView):  # its offset would be baked in, and not follow the object's changes
            raise self.fail("a qd.BufferView reaches a kernel only as an argument of a parameter annotated "
                            "qd.BufferView", kind="type", hint="pass the view as a kernel argument.")
        if isinstance(value, Matrix):
            values = value.to_numpy()
            return VectorValue([x.item() for x in values.reshape(-1)], values.shape)
        return value

    def global_array(self, container, py_name=None, label=None):
        if getattr(container, "_composed", False):  # members placed one by one (component_refs.py)
            return components_ref(self, container, py_name, label)
        if getattr(container, "_quant", None) is not None:  # bits packed in a word field (quant_access.py), which
            return quant_ref(self, container, py_name, label)  # becomes the global the kernel takes
        ref = self.global_refs.get(id(container))
        if ref is None:
            # Named after the Python global where there is one, so bounds errors name the field.
            name = self.names.fresh(py_name or f"_g{len(self.globals)}")
            ref = kernel_ref(self, container, name, label or name)  # fields get a FieldRef (sparse_access.py)
            self.global_refs[id(container)] = ref
            self.globals.append(container)
            self.reads.container(container)
        return ref

    # ---- dataclass and data_oriented arguments (compound_params.py) -------------------------------
    def array_twin(self, ref, attr):
        """`x.grad` / `x.dual` of a runtime array argument: the twin array, a leaf read from the argument per call."""
        path = ref.path + (attr,)
        value, has_value = None, self.call_values is not None
        if has_value:
            value = self.call_values[path[0]]
            for name in path[1:]:
                value = getattr(unwrap(value), name, None)
            if value is None:
                raise self.fail(f"'{ref.label}.{attr}' is read, but the array passed for '{ref.label}' has no {attr}",
                                hint=f"create it with needs_{attr}=True.", kind="type")
        elif isinstance(self.leaves, DiscoverLeaves):
            raise self.fail(f"'{ref.label}.{attr}' can only be read in the kernel's own body",
                            hint=f"read it in the kernel, or pass {ref.label}.{attr} as an argument.", kind="type")
        return self.leaf(Leaf(path, "array", NdarrayType()), unwrap(value), has_value)

    def struct_argument(self, path, struct_type, call_values):
        """A kernel parameter annotated with a qd.types.struct: passed by value, each scalar and vector member a
        leaf read from the argument's attributes on every call."""
        members = {}
        for key, member_type in struct_type.members.items():
            member_path = path + (key,)
            value = None
            if call_values is not None:
                value = call_values[member_path[0]]
                for name in member_path[1:]:
                    value = getattr(value, name)
            if isinstance(member_type, VectorType):
                members[key] = self.leaf(Leaf(member_path, "vector", member_type), value, call_values is not None)
            elif hasattr(member_type, "members"):  # a nested struct type
                members[key] = self.struct_argument(member_path, member_type, call_values)
            else:
                members[key] = self.leaf(Leaf(member_path, "scalar", member_type), value, call_values is not None)
        return StructValue(struct_type, members)

    def tensor_argument(self, path, call_values):
        """A qd.Tensor kernel parameter: its array as a leaf read on every call, or its template value."""
        value = self.slot_values[path]
        if value is not ARRAY:
            return self.template_argument(path, value)
        has_value = call_values is not None
        return self.leaf(Leaf(path, "array", NdarrayType()), unwrap(call_values[path[0]]) if has_value else None,
                         has_value)

    def template_argument(self, path, value):
        """A template argument: dataclass and data_oriented objects are read member by member."""
        if is_compound(value):
            return CompoundRef(path, value, None, not bakes_primitives(value))
        return self.capture(value)

    def compound_member(self, ref, attr):
        """`ref.attr`: a leaf parameter, a global field, a constant, a nested reference or a bound func."""
        path = ref.path + (attr,)
        if ref.schema is not None:
            member = ref.schema.members.get(attr)
            if member is None:
                return self.class_attribute(ref, attr)
            child = self.member_of(ref, attr) if ref.obj is not None else None
            if ref.obj is not None:
                self.reads.member(path, child, member.kind in ("array", "scalar", "tensor"))
            if member.kind == "struct":
                return CompoundRef(path, child, member.schema)
            if member.kind == "template":
                return self.object_member(ref, path, self.slot_values[path])
            if member.kind == "tensor" and self.slot_values[path] is not ARRAY:
                return self.object_member(ref, path, self.slot_values[path])
            if member.kind == "tensor":
                return self.leaf(Leaf(path, "array", NdarrayType()), unwrap(child), ref.obj is not None)
            return self.leaf(Leaf(path, member.kind, member_annotation(member)), child, ref.obj is not None)
        value = self.member_of(ref, attr)
        self.reads.member(path, value, is_runtime_array(unwrap(value)) or (
            ref.runtime_primitives and type(unwrap(value)) in (bool, int, float)))
        return self.object_member(ref, path, value)

    def member_of(self, ref, attr):
        try:
            return getattr(ref.obj, attr)
        except AttributeError:
            raise self.fail(f"{ref.cls.__qualname__} object '{'.'.join(ref.path)}' has no attribute '{attr}'",
                            kind="type") from None

    def class_attribute(self, ref, attr):
        """A dataclass parameter's attribute that is no member: a @qd.func method or a class constant."""
        try:
            value = getattr(ref.schema.cls, attr)
        except AttributeError:
            members = ", ".join(ref.schema.members) or "none"
            raise self.fail(f"dataclass {ref.cls.__qualname__} ('{'.'.join(ref.path)}') has no member '{attr}' "
                            f"(its members: {members})", kind="type") from None
        self.reads.class_attribute(ref.schema.cls, attr, value)
        return BoundFunc(value, ref) if isinstance(value, Func) else self.capture(value)

    def object_member(self, ref, path, value):
        """What an attribute value of a data_oriented or dataclass object stands for in the kernel."""
        value = unwrap(value)
        if isinstance(value, BoundFunc):
            return BoundFunc(value.func, ref) if value.instance is ref.obj else value
        if is_compound(value):
            # As upstream, the class of the kernel's argument decides for every object reached through it: a
            # nested object's own template_primitives is not consulted (test_data_oriented.py).
            return CompoundRef(path, value, None, ref.runtime_primitives)
        if is_runtime_array(value):
            return self.leaf(Leaf(path, "array", NdarrayType()), value, True)
        if ref.runtime_primitives and type(value) in (bool, int, float):
            return self.leaf(Leaf(path, "scalar", float if type(value) is float else int), value, True)
        return self.capture(value, "__".join(path), ".".join(path))

    def leaf(self, leaf, value, has_value):
        """The kernel value of a leaf: an array parameter's ArrayRef, or `(arg NAME)` for a scalar."""
        found = self.leaf_values.get(leaf.path)
        if found is not None:
            return found
        spec = self.leaves.spec(leaf, value, has_value)
        name = self.names.fresh("__".join(leaf.path))
        if leaf.kind == "scalar":
            found = Expr(f"(arg {name})")
            self.leaf_texts[leaf.path] = f"(scalar {name} {spec[1]})"
            self.scalar_leaf_labels[found.text] = leaf.label
        elif leaf.kind == "vector":  # one scalar param per entry, row-major, as vector kernel parameters
            names = [self.names.fresh(f"{name}__{k}") for k in range(math.prod(spec[2]))]
            found = VectorValue([Expr(f"(arg {n})") for n in names], spec[2])
            self.leaf_texts[leaf.path] = " ".join(f"(scalar {n} {spec[1]})" for n in names)
        else:
            _, dtype, ndim, element_shape, contiguous, writable = spec
            found = ArrayRef(name, dtype, ndim, element_shape, label=leaf.label, path=leaf.path,
                             clamp=getattr(leaf.annotation, "boundary", "unsafe") == "clamp")
            shape = " ".join(map(str, element_shape))
            self.leaf_texts[leaf.path] = f"(array {name} {dtype} {ndim} ({shape}) {int(contiguous)} {int(writable)})"
        self.leaf_values[leaf.path] = found
        return found

    def declare(self, py_name, value, dtype_name=None):
        """Binds a new local for `py_name` in the innermost scope, emitting its `decl`s."""
        if isinstance(value, np.ndarray) and dtype_name is None:  # a captured numpy array becomes a scalar local
            if value.ndim:
                raise self.fail("Only 0-dimensional numpy array can be used to initialize a scalar expression",
                                kind="type", hint="index it at compile time (a = arr[2]), bind it with "
                                "a = qd.static(arr), or pass it as a qd.types.ndarray() argument.")
            value = value.item()
        if isinstance(value, VectorValue):
            names = []
            for entry in value.entries:
                names.append(self._decl(self.names.fresh(py_name), entry, dtype_name))
            self.bind(py_name, VectorVar(names, value.shape, self.parallel_depth))
        elif isinstance(value, Expr) or _is_number(value):
            self.bind(py_name, LocalVar(self._decl(self.names.fresh(py_name), value, dtype_name), self.parallel_depth))
        elif is_struct(value) and dtype_name is None:  # a copy, one local per scalar member (struct_values.py)
            self.declare_struct(py_name, value)
        elif isinstance(value, (list, tuple, dict)) and dtype_name is None:  # entries as locals (local_lists.py)
            self.declare_sequence(py_name, value)
        elif dtype_name is not None:
            raise self.fail(f"a typed local needs a scalar or vector value, but got {describe(value)}", kind="type")
        else:
            self.bind(py_name, StaticBinding(value))

    def _decl(self, ir_name, value, dtype_name):
        if dtype_name is None:
            check_default_int(self, value)  # literals.py
        text = self.sink_text(value)
        self.builder.emit(f"decl {ir_name} {dtype_name} {text}" if dtype_name else f"decl {ir_name} {text}")
        return ir_name

    def sink_text(self, value):
        """The text of a value stored once (decl, assign, store, return): an atomic needs no temporary."""
        return value.text if isinstance(value, Expr) else self.ops.text(value)

    def materialize(self, expr):
        """An atomic used as an operand is stored in a temporary first, so it runs exactly once."""
        if not expr.side_effect:
            return expr
        name = self.names.fresh("_t")
        self.builder.emit(f"decl {name} {expr.text}")
        return Expr(f"(var {name})")

    def materialize_value(self, value):
        if isinstance(value, Expr):
            return self.materialize(value)
        if isinstance(value, VectorValue):
            return VectorValue([self.materialize_value(x) for x in value.entries], value.shape)
        return value

    def set_loc(self, node):
        self.builder.loc = (node.lineno, node.col_offset)
        self.line_sources.setdefault(node.lineno, self.ctx.source)

    # ---- inlined functions ----------------------------------------------------------------------
    def enter_function(self, source, is_kernel, inlined_at_top_level=False):
        """inlined_at_top_level: a @qd.func inlined where the kernel's own top-level statements are; its
        top-level loops are then the kernel's top-level loops, parallel as upstream makes them."""
        saved = (self.ctx, self.loops, self.top_level, self.builder.loc)
        self.ctx = FunctionContext(source, is_kernel)
        self.loops = []
        self.top_level = is_kernel or inlined_at_top_level
        self.entered.append((source, len(self.node_stack)))
        self.reads.function(source)
        return saved

    def leave_function(self, saved):
        self.ctx, self.loops, self.top_level, self.builder.loc = saved
        self.entered.pop()


def _is_number(value):
    return isinstance(value, (bool, int, float))


def _sentence(message):
    """Capitalizes a leading plain word ('name ...' but not 'range() ...') and ends with a period."""
    first = message.split(" ", 1)[0]
    if first.isalpha():
        message = message[0].upper() + message[1:]
    return message if message.endswith((".", "?", "!")) else message + "."


def ad_stack_option(config):
    """The IR option giving reverse_ad's stack capacity (qd.init(ad_stack_size=)); empty for the default."""
    size = config.options.ad_stack_size if config.options is not None else 0
    return f" (ad_stack_size {size})" if size else ""


def bounds_option(config):
    """The IR option for qd.init(check_out_of_bound=True) without debug: bounds checks alone (debug implies them)."""
    return " (bounds 1)" if config.check_out_of_bound and not config.debug else ""


def graph_option(kernel_options):
    """The IR option of @qd.kernel(graph=True): the CUDA launcher replays the kernel's tasks as a CUDA graph."""
    return " (graph 1)" if kernel_options.get("graph") or kernel_options.get("gpu_graph") else ""


def source_lines_option(config, line_sources):
    """Debug mode: the IR option giving each statement line's file, function and text, which the kernel's own
    messages quote (integer overflow reports, src/codegen/overflow_checks.h); empty in release mode."""
    if not config.debug or not line_sources:
        return ""
    entries = "".join(
        f" ({line} {string_text(source.filename)} {string_text(source.fn.__name__)} "
        f"{string_text(source.source_line(line).rstrip())})"
        for line, source in sorted(line_sources.items())
    )
    return f" (source_lines ({entries[1:]}))"


def transform_tree(tree, tr):
    """Translates the body of the function definition `tree` (or of the one function an ast.Module holds) into
    the translator `tr`'s current block; upstream's quadrants.lang.ast.transform_tree(tree, ctx)."""
    if isinstance(tree, ast.Module) and len(tree.body) == 1:
        tree = tree.body[0]
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TypeError(f"transform_tree() expects an ast.FunctionDef (or a Module holding one), but got "
                        f"{type(tree).__name__}")
    tr.visit_body(tree.body)


def translate_kernel(fn, name, params, spec, slot_values, returns, config, leaves=None, struct_values=None,
                     options=None, reads=None):
    """IR text for `fn` under one specialization; returns (ir_text, global containers, line_sources).

    params: KernelParam list (all parameters); spec: one entry per scalar or array parameter as the
    launcher computes it; slot_values: template values by path (KernelDefinition.slot_values);
    leaves: where the leaves of compound arguments get their specialization (DiscoverLeaves by
    default); struct_values: the call's dataclass arguments by name, when there is a call; options: the
    kernel's decorator options (@qd.kernel(graph=True)); reads: the ReadHooks told of every Python value read.
    The IR parameters are the scalar/array parameters, then the leaves in plan order, then fields.
    """
    tr = Translator(config)
    tr.leaves = leaves if leaves is not None else DiscoverLeaves(name)
    tr.slot_values = slot_values
    tr.call_values = struct_values
    tr.kernel_options = options or {}
    tr.purity = PurityCheck() if is_pure(tr.kernel_options) else None
    if reads is not None:
        tr.reads = reads
    source = function_source(fn)
    saved = tr.enter_function(source, is_kernel=True)
    param_texts = tr.bind_kernel_params(params, spec, slot_values, struct_values)
    tr.ctx.kernel_params = {param.name for param in params}
    tr.ctx.return_annotation = returns  # a ReturnSpec or None (return_values.py)
    tr.set_loc(tr.ctx.source.tree)
    tr.begin_checkpoints()  # checkpoint_translate.py: a checkpoints=True kernel's resume point
    transform_tree(tr.ctx.source.tree, tr)
    if returns is not None and not tr.kernel_options.get("checkpoints") and not tr.ctx.kernel_returned:
        # As upstream, after qd.static pruning: a return only in a branch this specialization drops counts for none.
        raise source.error(source.tree, "Kernel has a return type but does not have a return statement.",
                           "return a value in every specialization, or remove the return annotation.", kind="syntax")
    tr.end_checkpoints()
    tr.leave_function(saved)
    tr.builder.top()[:0] = [Stmt(text) for text in tr.kernel_random_prelude()]
    drop_writes(tr)  # an autodiff prepass over sparse fields writes only activity (sparse_grads.py)
    for leaf in tr.leaves.plan:
        if leaf.path not in tr.leaf_texts:  # planned but not read by this specialization
            tr.leaf(leaf, None, False)
        param_texts.append(tr.leaf_texts[leaf.path])
    for ref, container in zip(tr.global_refs.values(), tr.globals):
        shape = " ".join(map(str, ref.element_shape))
        ndim = getattr(ref, "storage_ndim", ref.ndim)  # a sparse field's pool has a dim more (sparse_access.py)
        contiguous = int(getattr(container._array, "is_contiguous", True))  # a component view is strided
        param_texts.append(f"(array {ref.name} {ref.dtype_name} {ndim} ({shape}) {contiguous} 1)")
    options = (
        f"(options (default_fp {tr.default_fp}) (default_ip {tr.default_ip}) "
        f"(debug {int(bool(config.debug))}) (fast_math {int(bool(config.fast_math))}){bounds_option(config)} "
        f"(source_file {string_text(source.filename)}){ad_stack_option(config)}{graph_option(tr.kernel_options)}"
        f"{source_lines_option(config, tr.line_sources)})"
    )
    body = "".join("\n    " + stmt.render(4) for stmt in tr.builder.top())
    functions = "".join(f"  {text}\n" for text in tr.real_function_texts())
    text = (
        f"(kernel {name}\n  {options}\n  (params {' '.join(param_texts)})\n"
        f"  (returns {tr.returns_text(returns)})\n{functions}  (body{body}))\n"
    )
    return text, list(tr.globals), tr.line_sources
