# python/quadrants/frontend/real_functions.py: @qd.real_func: functions compiled once per signature and called.
#
# An inlined @qd.func is translated again at every call; a real function becomes one IR `function`
# (docs/IR.md) per signature and every call a `call` statement, so it may call itself. Its signature
# is what the parameters' annotations fix: scalars, vectors, matrices and structs are passed by value
# (one IR param per scalar, as kernel parameters are), qd.ref(dtype) passes a caller's local by
# reference, and qd.template(), ndarray and dataclass parameters are compile-time values: each
# distinct one (a field, an ndarray parameter of the kernel, an object) gets its own specialization,
# whose body reads the arrays through the kernel's own array params. The returned value is flattened
# the same way into the function's `returns` and rebuilt at the call from the locals it is assigned to.
import inspect

from quadrants.frontend.compound_params import CompoundRef, is_dataclass_type
from quadrants.frontend.func_args import ArgumentError, bind_arguments
from quadrants.frontend.ir_builder import BlockBuilder, Expr, local_name
from quadrants.frontend.real_function_random import RealFunctionRandom, random_params
from quadrants.frontend.return_values import return_spec
from quadrants.frontend.source import function_source
from quadrants.frontend.struct_values import StructValue, StructVar
from quadrants.frontend.tensor_params import is_tensor_annotation
from quadrants.frontend.values import ArrayRef, LocalVar, StaticBinding, VectorValue, VectorVar
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import NdarrayType, RefType, Template


def is_static_annotation(annotation):
    """Parameters bound at compile time: each distinct argument specializes the function."""
    return isinstance(annotation, (Template, NdarrayType)) or annotation is Template or \
        is_tensor_annotation(annotation) or is_dataclass_type(annotation)


class _Signature:
    """One specialization: its IR function name, params, return spec, body, and what it needs of random streams."""

    def __init__(self, name, return_spec_):
        self.name = name
        self.returns = return_spec_
        self.param_texts = self.returns_text = self.body = None  # set once the body is translated
        self.random_key = self.random_seq = None  # the hidden stream parameters (real_function_random.py)
        self.calls_random = False  # whether its own body calls qd.random()/qd.randn()
        self.callees = set()  # the signatures its body calls


def _static_key(value):
    if isinstance(value, ArrayRef):
        return ("array", value.name)
    if isinstance(value, CompoundRef):
        return ("compound", value.path, id(value.obj))
    return ("value", id(value))


class RealFunctionTranslator(RealFunctionRandom):
    """The translator's real functions: `call_real_func` at each call, the definitions in `real_functions`."""

    def call_real_func(self, func, args, kwargs):
        try:
            bound = bind_arguments(func.fn.__name__, inspect.signature(func.fn), args, kwargs)
        except ArgumentError as exc:
            raise self.fail(str(exc), kind="syntax") from None
        params, statics, arg_texts = [], [], []
        for name, value in bound.arguments.items():
            kind, spec = self.real_param(func, name, value)
            params.append((name, kind, spec))
            if kind == "static":
                statics.append((name, value))
            elif kind == "ref":
                arg_texts.append(f"(ref {self.real_ref_local(func, name, value)})")
            else:
                arg_texts += [self.ops.text(x) for x in self.returned_scalars(spec, value)]
        signature = self.real_signature(func, params, statics)
        results = self.real_results(signature)
        call = self.builder.emit(f"call {signature.name} ({' '.join(arg_texts)}) ({' '.join(results)})")
        self.thread_random_stream(signature, call)  # qd.random() inside it draws from the caller's stream
        if signature.returns is None:
            return None
        return _rebuild(signature.returns, [Expr(f"(var {r})") for r in results])

    def real_param(self, func, name, value):
        """('static', None), ('ref', dtype name) or ('value', ReturnSpec) for one argument."""
        annotation = func.annotations.get(name)
        if annotation is None and name == "self":
            return "static", None
        if isinstance(annotation, NdarrayType) and isinstance(value, ArrayRef) and value.path is None:
            raise self.fail(f"Expected ndarray in the kernel argument for argument {name} of @qd.real_func "
                            f"'{func.fn.__name__}', but got {describe(value)}, which the kernel captured",
                            kind="type", hint="pass the ndarray to the kernel as an argument, and from there on.")
        if is_static_annotation(annotation):
            if (isinstance(value, Expr) or is_number(value)) and not isinstance(annotation, NdarrayType):
                if isinstance(value, Expr):
                    raise self.fail(f"parameter '{name}' of @qd.real_func '{func.fn.__name__}' is a compile-time "
                                    f"value ({annotation!r}), but got a kernel value", kind="type",
                                    hint="annotate it with a dtype, e.g. 'x: qd.i32', to pass it at run time.")
            return "static", None
        if isinstance(annotation, RefType):
            return "ref", self.dtype_argument(annotation.dtype)
        try:
            spec = return_spec(annotation)
        except TypeError as exc:
            raise self.fail(f"parameter '{name}' of @qd.real_func '{func.fn.__name__}': {exc}", kind="type") from None
        if spec is None or spec.kind == "tuple":
            raise self.fail(f"parameter '{name}' of @qd.real_func '{func.fn.__name__}' has annotation {annotation!r}; "
                            "a real function takes dtypes, vectors, matrices, structs, qd.ref(dtype), qd.template(), "
                            "ndarrays and dataclasses", kind="type")
        return "value", spec

    def real_ref_local(self, func, name, value):
        local = local_name(value)
        if local is None:
            raise self.fail(f"parameter '{name}' of @qd.real_func '{func.fn.__name__}' is a qd.ref(), so the call must "
                            f"pass a local variable, but got {describe(value)}", kind="type")
        return local

    def real_signature(self, func, params, statics):
        key = (id(func),) + tuple(_static_key(v) for _, v in statics)
        found = self.real_functions.get(key)
        if found is not None:
            return found[0]
        try:
            returns = return_spec(func.annotations.get("return"))
        except TypeError as exc:
            raise self.fail(f"the return type of @qd.real_func '{func.fn.__name__}': {exc}", kind="type") from None
        signature = _Signature(self.names.fresh(func.fn.__name__), returns)
        self.real_functions[key] = (signature, [v for _, v in statics])  # keeps the static values alive
        self.real_function_order.append(signature)
        self.translate_real_function(func, signature, params, dict(statics))
        return signature

    def real_results(self, signature):
        if signature.returns is None:
            return []
        names = []
        for dtype in signature.returns.dtype_names(self.default_fp, self.default_ip):
            names.append(self.names.fresh("_rf"))
            self.builder.emit(f"decl {names[-1]} {dtype} (const int 0)")
        return names

    def translate_real_function(self, func, signature, params, statics):
        """The function's definition text; it is registered first, so a recursive call finds it."""
        saved_builder, saved_depth, saved_inline = self.builder, self.parallel_depth, self.inline_stack
        saved_function, saved_scopes = self.current_real_function, self.random_scopes
        self.builder, self.parallel_depth, self.inline_stack = BlockBuilder(), 0, []
        self.current_real_function, self.random_scopes = signature, [self.function_random_scope(signature)]
        saved = self.enter_function(function_source(func.fn), is_kernel=False)
        self.ctx.real_function = signature
        self.real_function_depth += 1
        try:
            param_texts = []
            for name, kind, spec in params:
                if kind == "static":
                    self.bind(name, StaticBinding(statics[name]))
                elif kind == "ref":
                    ir_name = self.names.fresh(name)
                    param_texts.append(f"(ref {ir_name} {spec})")
                    self.bind(name, LocalVar(ir_name, 0))
                else:
                    self.bind(name, self.real_value_param(name, spec, param_texts))
            self.ctx.return_annotation = func.annotations.get("return")
            self.set_loc(self.ctx.source.tree)
            self.visit_body(self.ctx.source.tree.body)
            signature.returns_text = "void" if signature.returns is None else \
                " ".join(signature.returns.dtype_names(self.default_fp, self.default_ip))
            signature.param_texts, signature.body = param_texts, self.builder.top()
            signature.calls_random = self.random_scopes[0].used
        finally:
            self.real_function_depth -= 1
            self.leave_function(saved)
            self.builder, self.parallel_depth, self.inline_stack = saved_builder, saved_depth, saved_inline
            self.current_real_function, self.random_scopes = saved_function, saved_scopes

    def real_value_param(self, name, spec, param_texts):
        """The binding of a by-value parameter: one IR param per scalar, as a local, vector or struct local."""
        if spec.kind == "scalar":
            ir_name = self.names.fresh(name)
            param_texts.append(f"(scalar {ir_name} {spec.dtype_names(self.default_fp, self.default_ip)[0]})")
            return LocalVar(ir_name, 0)
        if spec.kind == "vector":
            dtype = spec.dtype_names(self.default_fp, self.default_ip)[0]
            names = [self.names.fresh(f"{name}__{k}") for k in range(len(spec.dtype_names("f32", "i32")))]
            param_texts += [f"(scalar {n} {dtype})" for n in names]
            return VectorVar(names, spec.annotation.shape, 0)
        members = {key: self.real_value_param(f"{name}_{key}", child, param_texts)
                   for key, child in spec.children.items()}
        return StructVar(spec.annotation, members)

    def real_return(self, node):
        """`return` inside a real function: the IR return of the flattened value."""
        spec = self.ctx.real_function.returns
        if node.value is None:
            if spec is not None:
                raise self.fail(f"this @qd.real_func returns {spec!r}, but this return gives no value", kind="type")
            self.builder.emit("return")
            return
        if spec is None:
            raise self.fail("this @qd.real_func's return value must be annotated", kind="syntax",
                            hint="annotate the return type, e.g. 'def f(x: qd.i32) -> qd.i32:'.")
        scalars = self.returned_scalars(spec, self.visit(node.value))
        self.builder.emit("return " + " ".join(self.sink_text(x) for x in scalars))

    def real_function_texts(self):
        """The functions' definitions, once the kernel is translated (the random streams need the call graph)."""
        users = self.finish_random_calls()
        texts = []
        for signature in self.real_function_order:
            params = (random_params(signature) if signature in users else []) + signature.param_texts
            body = "".join("\n      " + stmt.render(6) for stmt in signature.body)
            texts.append(f"(function {signature.name} (params {' '.join(params)}) (returns {signature.returns_text})\n"
                         f"    (body{body}))")
        return texts


def _rebuild(spec, values, k=0, top=True):
    """The translated value of a flattened returned value: Expr, VectorValue, StructValue or tuple."""
    if spec.kind == "scalar":
        result, k = values[k], k + 1
    elif spec.kind == "vector":
        size = len(spec.dtype_names("f32", "i32"))
        result, k = VectorValue(values[k:k + size], spec.annotation.shape), k + size
    elif spec.kind == "struct":
        members = {}
        for key, child in spec.children.items():
            members[key], k = _rebuild(child, values, k, False)
        result = StructValue(spec.annotation, members)
    else:
        items = []
        for child in spec.children:
            item, k = _rebuild(child, values, k, False)
            items.append(item)
        result = tuple(items)
    return result if top else (result, k)
