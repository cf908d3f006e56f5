# python/quadrants/frontend/func_calls.py: a @qd.func call inlined into the kernel (its arguments bound to its
# parameters, its body translated in place), and a kernel's own parameters bound at the start of its body.
import inspect
import math

from quadrants.frontend.buffer_views import is_view_annotation
from quadrants.frontend.compound_params import CompoundRef, is_dataclass_type
from quadrants.frontend.func_args import ArgumentError, array_mismatch, bind_arguments
from quadrants.frontend.ir_builder import Expr, local_name
from quadrants.frontend.returns import returns_early
from quadrants.frontend.source import function_source
from quadrants.frontend.tensor_params import is_tensor_annotation
from quadrants.frontend.values import ArrayRef, LocalVar, ParamVar, StaticBinding, VectorValue, VectorVar, is_runtime
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import NdarrayType, RefType, Template, VectorType
from quadrants.types.unpacked import reject as reject_unpacked


MAX_INLINED_RECURSION = 32  # levels of a func inlined into itself: compile-time recursion only


class FuncCallTranslator:
    """Mixed into the Translator: inlining @qd.func bodies and binding parameters."""

    # ---- funcs and parameters -------------------------------------------------------------------
    def inline_func(self, func, args, kwargs):
        if self.inline_stack.count(func) >= MAX_INLINED_RECURSION:
            # Recursion that qd.static ends at compile time (f(n) calls f(n // 2) until a static n == 0) is
            # inlined level by level, as upstream; runtime recursion would never end.
            raise self.fail(f"@qd.func '{func.fn.__name__}' calls itself more than {MAX_INLINED_RECURSION} levels "
                            "deep; only recursion that a compile-time condition ends (`if qd.static(n):`) is "
                            "supported, since a func is inlined", hint="rewrite runtime recursion as a loop.")
        try:
            bound = bind_arguments(func.fn.__name__, inspect.signature(func.fn), args, kwargs)  # func_args.py
        except ArgumentError as exc:
            raise self.fail(str(exc), kind="syntax") from None
        if func.requires_top_level and not self.top_level:
            raise self.fail(f"@qd.func '{func.fn.__name__}' is marked requires_top_level=True, so it can only be "
                            "called at the kernel's top level, not inside runtime for/if/while control flow (nor "
                            "through a func called there)",
                            hint="call it among the kernel's top-level statements (a qd.static loop is fine), where "
                            "its loops stay the kernel's own parallel loops.")
        source = function_source(func.fn)
        # Called among the kernel's top-level statements, the func's own top-level loops run in parallel (each
        # an offloaded task, as upstream); not when it returns early, since a return cannot leave a parallel loop.
        at_top = self.top_level and not returns_early(source.tree.body)
        saved = self.enter_function(source, is_kernel=False, inlined_at_top_level=at_top)
        self.ctx.plain_python = getattr(func, "plain_python", False)
        self.inline_stack.append(func)
        try:
            for name, value in bound.arguments.items():
                self.bind_func_argument(name, value, func.annotations.get(name))
            self.ctx.return_annotation = func.annotations.get("return")
            self.visit_function_body(self.ctx.source.tree.body)
            return self.ctx.return_value
        finally:
            self.inline_stack.pop()
            self.leave_function(saved)

    def bind_func_argument(self, name, value, annotation):
        """Funcs take scalars and vectors by value (a fresh local), everything else by reference."""
        if isinstance(annotation, VectorType):
            reject_unpacked(annotation, f"annotate @qd.func parameter '{name}' with")
        if is_dataclass_type(annotation):
            given = value.cls if isinstance(value, CompoundRef) else type(value)
            if not issubclass(given, annotation) or is_runtime(value):
                raise self.fail(f"@qd.func parameter '{name}' is annotated with dataclass {annotation.__qualname__}, "
                                f"but got {describe(value)}", kind="type",
                                hint="pass the kernel's dataclass parameter or one of its dataclass members.")
            self.bind(name, StaticBinding(value))
            return
        if is_view_annotation(annotation):  # a qd.BufferView, by reference (buffer_views.py)
            self.check_view_argument(name, value)
            self.bind(name, StaticBinding(value))
            return
        if self.bind_struct_argument(name, value, annotation):  # a struct, passed by value (struct_values.py)
            return
        if isinstance(annotation, NdarrayType) and isinstance(value, ArrayRef):
            mismatch = array_mismatch(name, annotation, value)
            if mismatch is not None:
                raise self.fail(mismatch, kind="value")
        is_template = isinstance(annotation, (Template, RefType)) or annotation is Template or \
            is_tensor_annotation(annotation)
        if is_template and local_name(value):
            # A caller's local given to a qd.template() parameter is passed by reference, as upstream: the
            # func's writes go to the caller's variable. Depth 0 keeps `+=` atomic inside parallel loops
            # (correct for a private local too, only slower).
            self.bind(name, LocalVar(local_name(value), 0))
            return
        if is_template and isinstance(value, VectorValue) and all(local_name(e) for e in value.entries):
            self.bind(name, VectorVar([local_name(e) for e in value.entries], value.shape, 0))  # likewise
            return
        if not is_template and annotation is None and type(value) in (list, tuple, dict):
            self.declare_sequence(name, value)  # a copy, as upstream: the func's stores stay in it (local_lists.py)
            return
        if is_template or not (is_runtime(value) or is_number(value)) or (self.ctx.plain_python and
                                                                           not is_runtime(value)):
            # A plain Python function keeps a Python number a Python value, as upstream runs it in Python.
            self.bind(name, StaticBinding(value))
            return
        if isinstance(annotation, VectorType):
            self.check_vector_argument(name, value, annotation)
        dtype = annotation.dtype if isinstance(annotation, VectorType) else annotation
        self.declare(name, value, None if dtype is None else self.dtype_argument(dtype))

    def check_vector_argument(self, name, value, annotation):
        """A func parameter annotated with a vector/matrix type takes a value of that shape (upstream's words)."""
        what = f"Argument {name} of type {annotation} is expected to be a Matrix"
        if not isinstance(value, VectorValue):
            raise self.fail(f"{what}, but got {describe(value)}")
        shape, wanted = value.shape, annotation.shape
        if len(shape) != len(wanted):
            raise self.fail(f"{what} with ndim {len(wanted)}, but got {len(shape)}")
        if shape[0] != wanted[0]:
            raise self.fail(f"{what} with n {wanted[0]}, but got {shape[0]}")
        if len(wanted) == 2 and shape[1] != wanted[1]:
            raise self.fail(f"{what} with m {wanted[1]}, but got {shape[1]}")

    def bind_kernel_params(self, params, spec, slot_values, struct_values=None):
        """Binds every kernel parameter; returns the IR texts of the scalar and array ones, in order.

        Template parameters take their value from slot_values; dataclass parameters become CompoundRefs
        (with the call's object when struct_values has it), whose members turn into leaves when read.
        """
        texts = []
        specs = iter(spec)
        for param in params:
            self.names.reserve(param.name)
            if param.kind == "template":
                path = (param.name,)
                self.bind(param.name, StaticBinding(self.template_argument(path, slot_values[path])))
                self.ctx.template_bindings[param.name] = self.lookup_binding(param.name)
                continue
            if param.kind == "struct":
                obj = struct_values.get(param.name) if struct_values else None
                self.bind(param.name, StaticBinding(CompoundRef((param.name,), obj, param.schema)))
                continue
            if param.kind == "view":  # a qd.BufferView: its ndarray, offset and size as leaves (buffer_views.py)
                obj = struct_values.get(param.name) if struct_values else None
                self.bind(param.name, StaticBinding(self.view_argument(param, obj)))
                continue
            if param.kind == "structval":  # a qd.types.struct by value: a local copy of its leaves
                self.declare(param.name, self.struct_argument((param.name,), param.annotation, struct_values))
                continue
            if param.kind == "tensor":  # an array leaf or a template value (tensor_params.py)
                self.bind(param.name, StaticBinding(self.tensor_argument((param.name,), struct_values)))
                self.ctx.template_bindings[param.name] = self.lookup_binding(param.name)
                continue
            entry = next(specs)
            if entry[0] == "vector":  # by value: one scalar IR param per entry, copied into a local vector
                names = [self.names.fresh(f"{param.name}__{k}") for k in range(math.prod(entry[2]))]
                texts += [f"(scalar {name} {entry[1]})" for name in names]
                self.declare(param.name, VectorValue([Expr(f"(arg {name})") for name in names], entry[2]))
                continue
            if entry[0] == "scalar":
                self.bind(param.name, ParamVar(param.name))
                texts.append(f"(scalar {param.name} {entry[1]})")
                continue
            _, dtype, ndim, element_shape, contiguous, writable = entry
            clamp = getattr(param.annotation, "boundary", "unsafe") == "clamp"
            self.bind(param.name, StaticBinding(ArrayRef(param.name, dtype, ndim, element_shape, path=(param.name,),
                                                         clamp=clamp)))
            shape = " ".join(map(str, element_shape))
            texts.append(f"(array {param.name} {dtype} {ndim} ({shape}) {int(contiguous)} {int(writable)})")
        return texts
