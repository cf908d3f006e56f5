# python/quadrants/kernels/definition.py: what @qd.kernel reads from a function: its parameters, the kinds the
# launcher and the dispatch need, and the translation and compile of one specialization.
import ast
import inspect
import logging
import textwrap
import time

from quadrants.base import log as _logging
from quadrants.base.gc_pause import collector_paused
from quadrants.base.errors import QuadrantsRuntimeTypeError, QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.data.buffer_view import BufferView
from quadrants.data.field_checks import check_placed
from quadrants.data.field_components import check_composed_fields
from quadrants.data.struct import StructType
from quadrants.frontend.buffer_views import is_view_annotation, view_type
from quadrants.frontend.compound_params import (
    DiscoverLeaves,
    MemberTypeError,
    dataclass_schema,
    is_dataclass_type,
    probe_spec,
)
from quadrants.frontend.funcs import _annotations, _param_error
from quadrants.frontend.graph_do_while_levels import levels_of
from quadrants.frontend.return_values import return_spec
from quadrants.frontend.purity import is_pure
from quadrants.frontend.source import function_source
from quadrants.frontend.tensor_params import is_tensor_annotation, slot_value, unwrap
from quadrants.frontend.translator import translate_kernel
from quadrants.kernels.checkpoint_kernel import checkpoint_return_spec, resume_param
from quadrants.kernels import translation_cache
from quadrants.kernels.launch_records import CompiledKernelData, FeLlCacheObservations, SrcLlCacheObservations
from quadrants.kernels.pitfalls import warn_about_source
from quadrants.kernels.translation_inputs import mentions, own_text
from quadrants.runtime import _core, init as _runtime
from quadrants.types.annotations import NdarrayType, Template, VectorType, scalar_dtype_name
from quadrants.types.unpacked import reject as reject_unpacked


class KernelParam:
    """One kernel parameter: kind is 'scalar', 'vector' (a vector/matrix by value), 'array', 'template',
    'tensor' (annotated qd.Tensor: an array or a template by value, tensor_params.py), 'struct' (annotated
    with a dataclass), 'structval' (a qd.types.struct, passed by value) or 'view' (a qd.BufferView)."""

    def __init__(self, name, kind, annotation, schema=None):
        self.name = name
        self.kind = kind
        self.annotation = annotation
        self.schema = schema  # the DataclassSchema of a 'struct' parameter
        self._entry = None

    def launcher_entry(self):
        """The tuple `_core.Launcher` expects for this (non-template) parameter: made once, as the kind and the
        annotation are fixed at decoration (a kernel's construction, first compile and cache key all read it)."""
        if self._entry is None:
            self._entry = self._make_launcher_entry()
        return self._entry

    def _make_launcher_entry(self):
        if self.kind == "scalar":
            return ("scalar", self.name, scalar_dtype_name(self.annotation))
        if self.kind == "vector":  # the launcher packs its entries as scalars
            dtype = float if self.annotation.dtype is None else self.annotation.dtype
            return ("vector", self.name, scalar_dtype_name(dtype), tuple(self.annotation.shape))
        return self.annotation.launcher_entry(self.name)


class DeferredDefinitionError(Exception):
    """A kernel definition error that upstream reports only when the kernel is called (a dataclass parameter whose
    member annotation kernels cannot take): kernel() makes a kernel whose every call raises `error`, so a program
    that defines but never calls such a kernel still imports, as it does upstream."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _kernel_params(fn, annotations):
    params = []
    for index, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' must be a plain positional parameter.",
                               "remove *args, **kwargs and keyword-only markers from the kernel's signature.",
                               kind="syntax")  # upstream's class for this and a missing annotation
        annotation = annotations.get(p.name)
        if annotation is None and index == 0 and p.name == "self":
            params.append(KernelParam(p.name, "template", Template()))  # a data_oriented method's instance
            continue
        if annotation is None:
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' has no type annotation.",
                               f"annotate it, e.g. '{p.name}: qd.f32', '{p.name}: qd.types.ndarray()' or "
                               f"'{p.name}: qd.template()'.", kind="syntax")
        if isinstance(annotation, Template) or annotation is Template or getattr(annotation, "_data_oriented", False):
            params.append(KernelParam(p.name, "template", annotation))
        elif is_tensor_annotation(annotation):
            params.append(KernelParam(p.name, "tensor", annotation))
        elif is_view_annotation(annotation):  # its ndarray, offset and size: leaves (frontend/buffer_views.py)
            params.append(KernelParam(p.name, "view", view_type(annotation)))
        elif isinstance(annotation, StructType):  # by value: its members are leaves (translator.struct_argument)
            params.append(KernelParam(p.name, "structval", annotation))
        elif is_dataclass_type(annotation):
            try:
                schema = dataclass_schema(annotation)
            except MemberTypeError as exc:  # upstream reads member annotations when the kernel first compiles
                raise DeferredDefinitionError(_param_error(fn, p.name, f"Kernel parameter '{p.name}': {exc}.",
                                              "annotate fields and other compile-time members qd.template().")) \
                    from None
            params.append(KernelParam(p.name, "struct", annotation, schema))
        elif isinstance(annotation, NdarrayType) or annotation is NdarrayType:
            params.append(KernelParam(p.name, "array", annotation if annotation is not NdarrayType else NdarrayType()))
        elif isinstance(annotation, VectorType):
            reject_unpacked(annotation, f"annotate kernel parameter '{p.name}' with")
            params.append(KernelParam(p.name, "vector", annotation))
        else:
            try:
                scalar_dtype_name(annotation)
            except TypeError:
                raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' has the annotation {annotation!r}, "
                                   "which is not a dtype, qd.types.ndarray(), qd.Tensor or qd.template().", None) from None
            params.append(KernelParam(p.name, "scalar", annotation))
    return params


def _reads_twins(fn, params):
    """Whether the kernel's body reads `.grad` or `.dual` of an array or qd.Tensor parameter (then it needs the
    call's arguments to find the twin arrays, so it dispatches in Python)."""
    names = {p.name for p in params if p.kind in ("array", "tensor")}
    if not names or not mentions(fn, (b"grad", b"dual")):
        return False  # no need to parse anything: `import genesis` decorates hundreds of kernels
    tree = _own_tree(fn)
    if tree is None:
        try:
            tree = function_source(fn).tree
        except QuadrantsSyntaxError:  # no source (exec): the first call reports it
            return False
    return any(isinstance(n, ast.Attribute) and n.attr in ("grad", "dual") and isinstance(n.value, ast.Name)
               and n.value.id in names for n in ast.walk(tree))


def _own_tree(fn):
    """The AST of the function's own lines, or None (then the frontend's parse of the whole file answers): parsing
    Genesis' 36 solver files whole at `import genesis` took 1-2 s, though a warm start translates nothing."""
    text = own_text(fn)
    try:
        return ast.parse(textwrap.dedent(text.decode("utf-8"))) if text is not None else None
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None


def _all_frozen(schema):
    if not schema.cls.__dataclass_params__.frozen:
        return False
    return all(_all_frozen(m.schema) for m in schema.members.values() if m.kind == "struct")


def _depends_on_defaults(param):
    """Whether the parameter's dtype comes from qd.init()'s default_fp/default_ip (int, float, or a
    vector type without a dtype), so its launcher must be rebuilt after every init."""
    if param.kind == "scalar":
        return param.annotation in (int, float)
    if param.kind == "vector":
        return param.annotation.dtype in (None, int, float) or getattr(param.annotation, "follows_defaults", False)
    if param.kind != "array":
        return False
    dtype = param.annotation.dtype
    if isinstance(dtype, VectorType):
        return dtype.dtype is None or dtype.dtype in (int, float) or getattr(dtype, "follows_defaults", False)
    return dtype in (int, float)


class KernelDefinition:
    """What a kernel is, apart from how it is called: parameters, return type, translation."""

    def __init__(self, fn, options=None):
        self.fn = fn
        self.options = options or {}  # @qd.kernel(graph=True, ...): graph allows qd.graph regions (graph_sections.py)
        self.cache_observations = SrcLlCacheObservations()  # what translation_cache.py did for the last translation
        self.fe_ll_observations = FeLlCacheObservations()  # whether a compile since qd.init() reused compiled code
        self.compiled_by_key = {}  # specialization -> CompiledKernelData since qd.init() (upstream's record of them)
        self.last_compiled = None  # the CompiledKernelData compiled last
        self.annotations = _annotations(fn)
        self.params = _kernel_params(fn, self.annotations)
        if self.options.get("checkpoints"):  # the checkpoint a launch starts from (checkpoint_kernel.py)
            self.params.append(resume_param(KernelParam))
        self.template_positions = [k for k, p in enumerate(self.params) if p.kind == "template"]
        self.runtime_positions = [k for k, p in enumerate(self.params) if p.kind in ("scalar", "vector", "array")]
        self.struct_positions = [k for k, p in enumerate(self.params) if p.kind == "struct"]
        self.tensor_positions = [k for k, p in enumerate(self.params) if p.kind == "tensor"]
        self.value_struct_positions = [k for k, p in enumerate(self.params) if p.kind == "structval"]
        self.view_positions = [k for k, p in enumerate(self.params) if p.kind == "view"]
        self.reads_twins = _reads_twins(fn, self.params)  # x.grad / x.dual of an array argument: leaves
        self.has_self = bool(self.params) and self.params[0].name == "self" and self.params[0].kind == "template"
        # What selects a compiled kernel besides the argument specialization: (position, attribute path,
        # kind) of every template and qd.Tensor parameter and of such members of dataclass parameters.
        self.template_slots = [(k, (), "template") for k in self.template_positions]
        self.template_slots += [(k, (), "tensor") for k in self.tensor_positions]
        for k in self.struct_positions:
            name = self.params[k].name
            self.template_slots += [(k, path[1:], kind) for path, kind in self.params[k].schema.template_paths((name,))]
        self.return_spec = self._return_spec()  # reports a bad return annotation at decoration time
        self.result_fn = self.return_spec.result_fn() if self.return_spec is not None else None

    def cached_struct_keys(self):
        """{position: attribute} of the frozen dataclass parameters (nested dataclasses frozen too) whose part of
        the template key is computed once per instance (kernel_dispatch._keys_source)."""
        return {k: f"_qd_key_{id(self.params[k].schema.cls):x}" for k in self.struct_positions
                if _all_frozen(self.params[k].schema)}

    @property
    def needs_python_dispatch(self):
        """Templates and dataclasses pick a launcher per call; `int`/`float` params take their dtype from qd.init();
        default values are filled in by the generated function's signature (the C++ launcher takes every argument)."""
        return bool(self.template_slots or self.struct_positions or self.value_struct_positions or
                    self.view_positions or self.reads_twins or self.fn.__defaults__) or \
            any(_depends_on_defaults(p) for p in self.params)

    def slot_values(self, args):
        """The template values of one call, keyed by path: ('self',), ('info', 'config')."""
        values = {}
        for k, attrs, kind in self.template_slots:
            value = args[k]
            for attr in attrs:
                value = getattr(value, attr)
            values[(self.params[k].name,) + attrs] = slot_value(value) if kind == "tensor" else unwrap(value)
        return values

    def template_values_by_path(self, template_values):
        """ir()'s template values, one per template parameter in order, keyed as slot_values() keys them."""
        return {(self.params[k].name,): v for k, v in zip(self.template_positions, template_values)}

    def _return_spec(self):
        annotation = self.annotations.get("return")
        if self.options.get("checkpoints"):  # the index of the checkpoint that yielded (checkpoint_kernel.py)
            return checkpoint_return_spec(self.fn, annotation)
        try:
            spec = return_spec(annotation)
        except TypeError as exc:
            raise _param_error(self.fn, None, f"Kernel '{self.fn.__name__}' returns {annotation!r}, which kernels "
                               f"cannot return ({exc}).", "annotate the return type as a dtype (-> qd.f32), a "
                               "vector or matrix type, a struct type or a tuple of those.") from None
        return spec

    def translate(self, spec, slot_values, leaves=None, struct_values=None, sparse_ad=None, no_ad_stack=False):
        """(IR text, fields used as globals, line sources) for one specialization; see translate_kernel.
        sparse_ad: "activate" or "adjoint" for autodiff over sparse fields (frontend/sparse_grads.py).
        no_ad_stack: the translation of a reverse-mode adjoint without AD stacks, which rejects range() loops
        nested in loops (frontend/loops.py); its text is the kernel's own."""
        check_placed()  # as upstream before it compiles: declared fields and needed gradients are placed
        check_composed_fields()  # and each vector field's members in one shape
        config = _runtime.config()
        options = dict(self.options, sparse_ad=sparse_ad) if sparse_ad else self.options
        if not is_pure(self.options) and getattr(config.options, "print_non_pure", False):
            # qd.init(print_non_pure=True), upstream's diagnostic: printed (not logged) whenever such a kernel compiles
            print(f"[NOT_PURE] Debug information: not pure: {self.fn.__name__}")
        if no_ad_stack:
            options = dict(options, no_ad_stack=True)

        def run(reads):
            if self.return_spec is not None and not self.options.get("checkpoints"):
                source = function_source(self.fn)
                if not any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(source.tree)):
                    raise source.error(source.tree, "Kernel has a return type but does not have a return statement.",
                                       "return a value, or remove the return annotation.", kind="syntax")
            with collector_paused():
                return translate_kernel(self.fn, self.fn.__name__, self.params, spec, slot_values,
                                        self.return_spec, config, leaves, struct_values, options, reads)

        if sparse_ad:  # the autodiff passes over sparse fields are not the kernel's own translation: not cached
            return run(None)
        if no_ad_stack:  # the cached text was translated without the check: run it (the text is the same)
            return run(None)
        # A process that translated this specialization before (any process) reads the IR from the disk cache.
        translation = translation_cache.translate(self, spec, slot_values, leaves, struct_values, config, run)
        if self.options.get("graph") or self.options.get("gpu_graph"):
            self.last_graph_ir = translation[0]  # graph_do_while_levels reads its flags' positions
        return translation

    last_graph_ir = None  # the IR text of a graph kernel's last translation
    translation_found = False  # whether the last translation came from the translation cache (translation_cache.py)

    @property
    def graph_do_while_levels(self):
        """Upstream's kernel.graph_do_while_levels (frontend/graph_do_while_levels.py)."""
        return levels_of(function_source(self.fn), self.last_graph_ir)

    def check_struct_arguments(self, args):
        """A TypeError naming the parameter where a dataclass or struct parameter got another kind of object
        (reading its members would fail with an AttributeError, on the first call or on a later one)."""
        for k in self.value_struct_positions:
            param = self.params[k]
            if not isinstance(args[k], param.annotation):  # upstream's class (a TypeError too)
                raise QuadrantsRuntimeTypeError(
                    f"Kernel '{self.fn.__name__}' argument '{param.name}' must be a {param.annotation!r} value (its "
                    f"annotation), but got {args[k]!r}.") from None
        for k in self.view_positions:
            if not isinstance(args[k], BufferView):  # upstream's class and first words
                raise QuadrantsRuntimeTypeError(
                    f"Argument {self.params[k].name} expects a BufferView, got {type(args[k]).__name__}: kernel "
                    f"'{self.fn.__name__}' annotates it qd.BufferView; pass arr[a:b] or qd.BufferView(arr, offset, "
                    "size).") from None
        for k in self.struct_positions:
            param = self.params[k]
            if not isinstance(args[k], param.schema.cls):
                raise TypeError(f"Kernel '{self.fn.__name__}' argument '{param.name}' must be a "
                                f"{param.schema.cls.__qualname__} instance (its annotation), but got "
                                f"{type(args[k]).__qualname__}.") from None

    def discover(self, args, slot_values):
        """Translates for one call's own arguments: (translation, regular specs, DiscoverLeaves)."""
        name = self.fn.__name__
        self.check_struct_arguments(args)
        regular = tuple(probe_spec(name, self.params[k].launcher_entry(), args[k]) for k in self.runtime_positions)
        leaves = DiscoverLeaves(name)
        structs = {p.name: arg for p, arg in zip(self.params, args)}
        return self.translate(regular, slot_values, leaves, structs), regular, leaves

    def launcher_params(self):
        return [self.params[k].launcher_entry() for k in self.runtime_positions]

    def compile(self, launcher, spec, template_values):
        """The launcher's compile_fn: IR for `spec`, globals handed to the launcher, then C++ compiles."""
        translation = self.translate(spec, self.template_values_by_path(template_values))
        return self.compile_translation(launcher, translation, spec)

    def forget_compiled(self):
        """qd.reset()/qd.init(): the compiled specializations are dropped with the launchers that held them."""
        self.compiled_by_key.clear()
        self.last_compiled = None
        self.fe_ll_observations = FeLlCacheObservations()

    def compile_translation(self, launcher, translation, key=None):
        """Hands the translation's fields to the launcher and compiles its IR for the current target; the result is
        recorded under `key` (the specialization, with the template key for a Python-dispatched kernel)."""
        text, containers, line_sources = translation
        launcher.set_globals([c._array for c in containers])
        config = _runtime.config()
        started = time.perf_counter()
        try:
            if config.is_cuda:
                reuses = _core.compiled_reuses()
                compiled = _core.compile_kernel_cuda(text, *config.cuda_properties["compute_capability"])
            else:
                if _runtime.CHECK_CUDA_CODEGEN:  # CPU machines still compile-check the CUDA code
                    _core.compile_kernel_cuda(text, 9, 0)
                reuses = _core.compiled_reuses()
                compiled = _core.compile_kernel(text)
        except _core.KernelUserError as exc:
            raise _located_error(exc, line_sources) from None
        if _core.compiled_reuses() > reuses:  # the compiled code came from a cache: upstream's FE-LL cache hit
            self.fe_ll_observations.cache_hit = True
        config.compiled_functions += 1  # impl.get_runtime().get_num_compiled_functions()
        self.last_compiled = CompiledKernelData(compiled)
        if key is not None:
            self.compiled_by_key[key] = self.last_compiled
        if compiled.warnings:
            warn_about_source(self.fn.__name__, compiled.warnings, line_sources)
        if _logging.logger.isEnabledFor(logging.DEBUG):
            _logging.debug(f"kernel '{self.fn.__name__}': compiled for {'cuda' if config.is_cuda else 'cpu'} in "
                           f"{(time.perf_counter() - started) * 1e3:.1f} ms (from the disk cache when it has it)")
        return compiled


def _located_error(exc, line_sources):
    """Re-raises a pass's KernelUserError(kind, message, line, col) with the file and source line."""
    kind, message, line, col = exc.args
    source = line_sources.get(line)
    cls = QuadrantsTypeError if kind == "type" else QuadrantsSyntaxError
    if source is None:
        return cls(message, "<kernel>", line, col)
    return cls(message, source.filename, line, col, source.source_line(line))
