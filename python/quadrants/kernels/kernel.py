# python/quadrants/lang/kernels.py: @qd.kernel and @qd.func: parameters, dispatch to the C++ launcher, errors.
#
# A kernel without template or dataclass parameters *is* a `_core.Launcher` (a subclass), so a call
# converts the arguments in C++ and calls back `compile_fn` only when it meets a new argument
# specialization (dtype, ndim, element shape, contiguity, writability). Other kernels dispatch in
# Python first: the template values select an entry, whose launcher takes the regular arguments and
# the leaves of dataclass and data_oriented arguments (compound_params.py); see Kernel.
import ast
import dataclasses
import functools
import inspect
import logging
import pickle
import time
import types
import warnings
import weakref

from quadrants.base import log as _logging
from quadrants.runtime import init as _runtime
from quadrants.data.ndarray import Ndarray
from quadrants.data.struct import StructType
from quadrants.kernels.checkpoint_kernel import CheckpointKernel, checkpoint_return_spec, resume_param
from quadrants.frontend.compound_params import (
    DiscoverLeaves,
    MemberTypeError,
    PlannedLeaves,
    dataclass_schema,
    is_dataclass_type,
    probe_spec,
)
from quadrants.base.errors import QuadrantsRuntimeTypeError, QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.kernels.dispatch import (
    identified_objects,
    make_entry_function,
    make_key_function,
    make_kernel_function,
)
from quadrants.kernels.pitfalls import warn_about_pitfalls, warn_about_source
from quadrants.frontend.return_values import return_spec
from quadrants.frontend.source import function_source
from quadrants.frontend.tensor_params import is_tensor_annotation, slot_value, unwrap
from quadrants.frontend.translator import translate_kernel
from quadrants.types.annotations import NdarrayType, Template, VectorType, scalar_dtype_name
from quadrants.frontend import templated_floats
from quadrants.types.unpacked import reject as reject_unpacked


class KernelParam:
    """One kernel parameter: kind is 'scalar', 'vector' (a vector/matrix by value), 'array', 'template',
    'tensor' (annotated qd.Tensor: an array or a template by value, tensor_params.py), 'struct' (annotated
    with a dataclass) or 'structval' (a qd.types.struct, passed by value)."""

    def __init__(self, name, kind, annotation, schema=None):
        self.name = name
        self.kind = kind
        self.annotation = annotation
        self.schema = schema  # the DataclassSchema of a 'struct' parameter

    def launcher_entry(self):
        """The tuple `_core.Launcher` expects for this (non-template) parameter."""
        if self.kind == "scalar":
            return ("scalar", self.name, scalar_dtype_name(self.annotation))
        if self.kind == "vector":  # the launcher packs its entries as scalars
            dtype = float if self.annotation.dtype is None else self.annotation.dtype
            return ("vector", self.name, scalar_dtype_name(dtype), tuple(self.annotation.shape))
        return self.annotation.launcher_entry(self.name)


def _annotations(fn):
    """The evaluated annotations of `fn` (string annotations are evaluated in its globals)."""
    result = {}
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, fn.__globals__, _closure_names(fn))  # noqa: S307 - the user's own text
            except Exception as exc:  # upstream raises QuadrantsSyntaxError for an annotation it cannot use
                what = "return annotation" if name == "return" else f"annotation of parameter '{name}'"
                raise _param_error(fn, name, f"The {what} ({annotation!r}) cannot be evaluated: {exc}.",
                                   "import the type it names, or write the type itself instead of a string.",
                                   kind="syntax") from None
        result[name] = annotation
    return result


def _closure_names(fn):
    names = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            names[name] = cell.cell_contents
        except ValueError:  # not assigned yet
            pass
    return names


def _param_error(fn, param_name, message, hint, kind="type"):
    source = function_source(fn)
    node = next((a for a in source.tree.args.args if a.arg == param_name), source.tree)
    return source.error(node, message, hint, kind=kind)


def _kernel_params(fn, annotations):
    params = []
    for index, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' must be a plain positional parameter.",
                               "remove *args, **kwargs and keyword-only markers from the kernel's signature.")
        annotation = annotations.get(p.name)
        if annotation is None and index == 0 and p.name == "self":
            params.append(KernelParam(p.name, "template", Template()))  # a data_oriented method's instance
            continue
        if annotation is None:
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' has no type annotation.",
                               f"annotate it, e.g. '{p.name}: qd.f32', '{p.name}: qd.types.ndarray()' or "
                               f"'{p.name}: qd.template()'.")
        if isinstance(annotation, Template) or annotation is Template or getattr(annotation, "_data_oriented", False):
            params.append(KernelParam(p.name, "template", annotation))
        elif is_tensor_annotation(annotation):
            params.append(KernelParam(p.name, "tensor", annotation))
        elif isinstance(annotation, StructType):  # by value: its members are leaves (translator.struct_argument)
            params.append(KernelParam(p.name, "structval", annotation))
        elif is_dataclass_type(annotation):
            try:
                schema = dataclass_schema(annotation)
            except MemberTypeError as exc:
                raise _param_error(fn, p.name, f"Kernel parameter '{p.name}': {exc}.",
                                   "annotate fields and other compile-time members qd.template().") from None
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
    try:
        tree = function_source(fn).tree
    except QuadrantsSyntaxError:  # no source (exec): the first call reports it
        return False
    return any(isinstance(n, ast.Attribute) and n.attr in ("grad", "dual") and isinstance(n.value, ast.Name)
               and n.value.id in names for n in ast.walk(tree))


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
        self.annotations = _annotations(fn)
        self.params = _kernel_params(fn, self.annotations)
        if self.options.get("checkpoints"):  # the checkpoint a launch starts from (checkpoint_kernel.py)
            self.params.append(resume_param(KernelParam))
        self.template_positions = [k for k, p in enumerate(self.params) if p.kind == "template"]
        self.runtime_positions = [k for k, p in enumerate(self.params) if p.kind in ("scalar", "vector", "array")]
        self.struct_positions = [k for k, p in enumerate(self.params) if p.kind == "struct"]
        self.tensor_positions = [k for k, p in enumerate(self.params) if p.kind == "tensor"]
        self.value_struct_positions = [k for k, p in enumerate(self.params) if p.kind == "structval"]
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
        """Templates and dataclasses pick a launcher per call; `int`/`float` params take their dtype from qd.init()."""
        return bool(self.template_slots or self.struct_positions or self.value_struct_positions or
                    self.reads_twins) or \
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

    def translate(self, spec, slot_values, leaves=None, struct_values=None):
        """(IR text, fields used as globals, line sources) for one specialization; see translate_kernel."""
        from quadrants.data.field_checks import check_placed
        from quadrants.data.field_components import check_composed_fields

        check_placed()  # as upstream before it compiles: declared fields and needed gradients are placed
        check_composed_fields()  # and each vector field's members in one shape
        if self.return_spec is not None and not self.options.get("checkpoints"):
            source = function_source(self.fn)
            if not any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(source.tree)):
                raise source.error(source.tree, "Kernel has a return type but does not have a return statement.",
                                   "return a value, or remove the return annotation.", kind="syntax")
        return translate_kernel(self.fn, self.fn.__name__, self.params, spec, slot_values,
                                self.return_spec, _runtime.config(), leaves, struct_values, self.options)

    def check_struct_arguments(self, args):
        """A TypeError naming the parameter where a dataclass or struct parameter got another kind of object
        (reading its members would fail with an AttributeError, on the first call or on a later one)."""
        for k in self.value_struct_positions:
            param = self.params[k]
            if not isinstance(args[k], param.annotation):
                raise TypeError(f"Kernel '{self.fn.__name__}' argument '{param.name}' must be a {param.annotation!r} "
                                f"value (its annotation), but got {args[k]!r}.") from None
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
        return self.compile_translation(launcher, translation)

    def compile_translation(self, launcher, translation):
        """Hands the translation's fields to the launcher and compiles its IR for the current target."""
        from quadrants.runtime import _core

        text, containers, line_sources = translation
        launcher.set_globals([c._array for c in containers])
        config = _runtime.config()
        started = time.perf_counter()
        try:
            if config.is_cuda:
                compiled = _core.compile_kernel_cuda(text, *config.cuda_properties["compute_capability"])
            else:
                if _runtime.CHECK_CUDA_CODEGEN:  # CPU machines still compile-check the CUDA code
                    _core.compile_kernel_cuda(text, 9, 0)
                compiled = _core.compile_kernel(text)
        except _core.KernelUserError as exc:
            raise _located_error(exc, line_sources) from None
        config.compiled_functions += 1  # impl.get_runtime().get_num_compiled_functions()
        if compiled.warnings:
            warn_about_source(self.fn.__name__, compiled.warnings, line_sources)
        if _logging.logger.isEnabledFor(logging.DEBUG):
            _logging.debug(f"kernel '{self.fn.__name__}': compiled for {'cuda' if config.is_cuda else 'cpu'} in "
                           f"{(time.perf_counter() - started) * 1e3:.1f} ms (from the disk cache when it has it)")
        return compiled


class KernelMixin:
    """The Python-side API that both kinds of kernel objects share."""

    @property
    def autodiff_mode(self):
        """Upstream's kernel.autodiff_mode: AutodiffMode.VALIDATION while a qd.ad.Tape(validation=True) records
        the kernel, else NONE (imported here: quadrants.types imports this package)."""
        from quadrants.types.enums import AutodiffMode

        return getattr(self, "_qd_autodiff_mode", AutodiffMode.NONE)

    @autodiff_mode.setter
    def autodiff_mode(self, mode):
        self._qd_autodiff_mode = mode

    def __reduce__(self):
        # By reference, as pickle treats functions: the unpickling process imports the kernel's module and
        # takes the kernel from it, so workers (spawn pools, torch.multiprocessing, Ray, Dask) compile their
        # own copy, or load it from the shared disk cache. pickle checks that the name leads back here.
        if "<locals>" in self.__qualname__:
            raise pickle.PicklingError(
                f"Kernel '{self.__qualname__}' cannot be pickled: it is defined inside a function, so another "
                f"process cannot import it by name. Define it at the top level of module '{self.__module__}'.")
        return self.__qualname__

    def export_ir(self, *example_args):
        """The IR text of the specialization that these example arguments select, for C++ programs.

        Compile it with qd::compile_kernel and run it with qd::launch_kernel (include/quadrants/launch.h).
        Template arguments are baked in; fields the kernel uses become extra array parameters at the end.
        """
        definition = self.definition
        if len(example_args) != len(definition.params):
            raise TypeError(f"export_ir() needs one example argument per parameter of '{self.fn.__name__}' "
                            f"({len(definition.params)}), but got {len(example_args)}.")
        translation, _, _ = definition.discover(example_args, definition.slot_values(example_args))
        return translation[0]

    def ir(self, spec, template_values=()):
        """The IR text for one specialization (see _core.Launcher for the spec format), for tests and debugging.

        template_values: one per template parameter, in order; kernels with dataclass parameters need
        export_ir(), which reads the members from example arguments.
        """
        definition = self.definition
        return definition.translate(spec, definition.template_values_by_path(template_values))[0]

    def grad(self, *args):
        """Runs the kernel's adjoint (reverse-mode autodiff, see quadrants.ad): what was added to the .grad of
        the fields and ndarrays it writes flows back into the .grad of those it reads."""
        from quadrants.ad._adjoint import NoGradients, adjoint_launchers

        try:
            return adjoint_launchers(self)(args)
        except NoGradients as exc:  # upstream runs such an adjoint, which changes nothing: say so, once
            if not getattr(self, "_qd_warned_no_gradients", False):
                self._qd_warned_no_gradients = True
                warnings.warn(f"{exc} Nothing was done.", stacklevel=2)
            return None

    @property
    def params(self):
        return self.definition.params

    @property
    def runtime_positions(self):
        return self.definition.runtime_positions


def _make_fast_kernel_class():
    from quadrants.runtime import _core

    class FastKernel(KernelMixin, _core.Launcher):
        """A kernel without template parameters: calling it runs the C++ launcher with no Python in between.

        Positional arguments only; qd.reset()/qd.init() drop its compiled specializations through
        `_release`, so the next call compiles again under the new configuration.
        """

        def __init__(self, definition):
            self.definition = definition
            self.fn = definition.fn
            functools.update_wrapper(self, definition.fn)
            compile_fn = functools.partial(_fast_compile, weakref.ref(self))
            _core.Launcher.__init__(self, definition.fn.__name__, definition.launcher_params(), compile_fn,
                                    result_fn=definition.result_fn)

        def _release(self):
            self.clear()

    return FastKernel


def _fast_compile(kernel_ref, spec, args):
    kernel = kernel_ref()
    _runtime.track(kernel)  # reset() empties the tracked set, so every compile registers again
    warn_about_pitfalls(kernel.fn.__name__, kernel.definition.launcher_params(), spec, args, stacklevel=3)
    return kernel.definition.compile(kernel, spec, ())


class Kernel(KernelMixin):
    """A kernel dispatched in Python: template, dataclass and `int`/`float` parameters.

    Users call `self.function`, generated with the kernel's own signature (kernel_dispatch.py). Each
    distinct combination of template values (numbers by value, objects by identity) has an entry: a
    generated function that calls the entry's launcher with the regular arguments and the leaves read
    from dataclass and data_oriented arguments. An entry lives as long as the objects its key names
    (as long as the kernel for objects without weak references), so an id() in a key is never
    reused by another object while its entry exists.
    """

    def __init__(self, definition):
        self.definition = definition
        self.fn = definition.fn
        self._instances = {}  # template key -> entry; cleared, never replaced: the function holds its .get
        names = [p.name for p in definition.params]
        cached = definition.cached_struct_keys()
        self._key_of = make_key_function(names, definition.template_slots, cached)
        function = make_kernel_function(self.fn.__name__, names, definition.template_slots, self._instances.get,
                                        self._miss, self._retry, self.definition.check_struct_arguments, cached)
        functools.update_wrapper(function, self.fn)
        function.__defaults__ = self.fn.__defaults__
        for attr in ("definition", "fn", "ir", "export_ir", "grad", "params", "runtime_positions"):
            setattr(function, attr, getattr(self, attr))
        function._qd_kernel = self
        self.function = function

    def _release(self):
        """qd.reset()/qd.init(): every launcher goes; the next call builds them under the new configuration."""
        self._instances.clear()

    def _retry(self, key, args):
        """A new specialization read a leaf the entry's launcher does not take: discover the leaves again."""
        self._instances.pop(key, None)
        return self.function(*args)

    def _miss(self, key, args):
        """The entry for a template key met for the first time (or since qd.reset())."""
        if _kernels_skipped():
            return _skip_call  # tracing fake tensors (qd.torch_op): no entry, nothing read from the arguments
        _runtime.config()  # initializes on first use
        _runtime.track(self)  # reset() and init() call _release
        definition = self.definition
        if not (definition.template_slots or definition.struct_positions or definition.value_struct_positions
                or definition.reads_twins):
            entry = self._make_launcher(())  # only `int`/`float` params: one launcher per qd.init()
        else:
            entry = self._discover(key, args)
        from quadrants.ad._tape import wrap_entry

        entry = self._instances[key] = wrap_entry(self, entry)  # records calls while a qd.ad.Tape is open
        return entry

    def _discover(self, key, args):
        """An entry translated with this call's arguments; it dies with the objects its key names."""
        definition = self.definition
        if definition.has_self and not getattr(type(args[0]), "_data_oriented", False):
            code = self.fn.__code__
            raise QuadrantsSyntaxError(
                f"Kernel method '{self.fn.__qualname__}' was called on a {type(args[0]).__qualname__}, "
                "which is not a @qd.data_oriented class.", code.co_filename, code.co_firstlineno,
                hint=f"decorate class {type(args[0]).__qualname__} with @qd.data_oriented.")
        for k in definition.template_positions:
            # As upstream, a kernel takes an ndarray as a runtime argument, never baked in as a template.
            if isinstance(args[k], Ndarray):
                raise QuadrantsRuntimeTypeError(
                    f"Ndarray shouldn't be passed in via `qd.template()`: kernel '{self.fn.__name__}' parameter "
                    f"'{definition.params[k].name}' got a qd.ndarray; annotate it qd.types.ndarray() (or qd.Tensor) "
                    "so that the array is passed at each call.")
            if dataclasses.is_dataclass(args[k]) and not getattr(type(args[k]), "_data_oriented", False):
                warnings.warn(f"Kernel '{self.fn.__name__}' got a {type(args[k]).__qualname__} dataclass instance "
                              f"for the qd.template-annotated kernel parameter '{definition.params[k].name}', which "
                              "upstream Quadrants deprecates; annotate the parameter with the dataclass type instead.",
                              DeprecationWarning, stacklevel=4)
        if templated_floats.enabled():
            templated_floats.check_template_arguments(self.fn.__name__, definition.params,
                                                      definition.template_positions, args)
        values = definition.slot_values(args)
        translation, regular, leaves = definition.discover(args, values)
        entry = self._make_entry(translation, regular, leaves, values)
        kept = []
        for obj in identified_objects(tuple(values.values()), []):
            try:
                weakref.finalize(obj, self._instances.pop, key, None)
            except TypeError:  # no weak references: the entry keeps the object alive instead
                kept.append(obj)
        entry._kept = kept
        return entry

    def _make_entry(self, translation, regular, leaves, values):
        """A launcher for the discovered leaves, and the generated function that calls it."""
        from quadrants.runtime import _core

        definition = self.definition
        name = self.fn.__name__
        plan = leaves.plan
        entries = definition.launcher_params() + [leaf.launcher_entry() for leaf in plan]
        pending = {tuple(regular) + tuple(leaves.specs): translation}  # the first compile reuses discovery's IR
        held = _HeldValues(values)
        holder = []

        def compile_fn(spec, flat_args):
            warn_about_pitfalls(name, entries, spec, flat_args, stacklevel=5)
            found = pending.pop(spec, None)
            pending.clear()
            if found is None:
                n = len(regular)
                found = definition.translate(spec[:n], held.values(), PlannedLeaves(plan, spec[n:]))
            return definition.compile_translation(holder[0], found)

        launcher = _core.Launcher(name, entries, compile_fn, result_fn=definition.result_fn)
        holder.append(launcher)
        roots = {p.name: k for k, p in enumerate(definition.params)}
        return make_entry_function(name, len(definition.params), definition.runtime_positions, plan, roots, launcher)

    def _make_launcher(self, template_values):
        from quadrants.runtime import _core

        definition = self.definition
        holder = []

        def compile_fn(spec, args):
            warn_about_pitfalls(self.fn.__name__, definition.launcher_params(), spec, args, stacklevel=4)
            return definition.compile(holder[0], spec, template_values)

        launcher = _core.Launcher(self.fn.__name__, definition.launcher_params(), compile_fn,
                                  result_fn=definition.result_fn)
        holder.append(launcher)
        return launcher


def is_kernel(value):
    """Whether `value` is a kernel (or a kernel method bound to an instance)."""
    if isinstance(value, types.MethodType):
        value = value.__func__
    return isinstance(value, KernelMixin) or getattr(value, "_qd_kernel", None) is not None


class _NotSkipped(Exception):
    pass


def _raise_not_skipped(spec, args):
    raise _NotSkipped


_skip_probe = None


def _kernels_skipped():
    """Whether kernels are skipped on this thread (torch_op's fake mode, see torch_ops.py).

    A launcher returns before anything else while they are; otherwise this argument-less one calls
    its compile_fn, which raises. Only asked on a miss, never per call.
    """
    global _skip_probe
    from quadrants.runtime import _core

    if _skip_probe is None:
        _skip_probe = _core.Launcher("_qd_skip_probe", [], _raise_not_skipped)
    try:
        _skip_probe()
    except _NotSkipped:
        return False
    return True


def _skip_call(*args):
    return None


class _HeldValues:
    """An entry's template values for later compiles: objects weakly (the entry dies with them), the rest as is."""

    def __init__(self, values):
        self._items = []
        for path, value in values.items():
            try:
                self._items.append((path, weakref.ref(value), True))
            except TypeError:
                self._items.append((path, value, False))

    def values(self):
        return {path: (ref() if weak else ref) for path, ref, weak in self._items}


def _located_error(exc, line_sources):
    """Re-raises a pass's KernelUserError(kind, message, line, col) with the file and source line."""
    kind, message, line, col = exc.args
    source = line_sources.get(line)
    cls = QuadrantsTypeError if kind == "type" else QuadrantsSyntaxError
    if source is None:
        return cls(message, "<kernel>", line, col)
    return cls(message, source.filename, line, col, source.source_line(line))


class Func:
    """A @qd.func: inlined into the kernels that call it."""

    is_real = False  # a RealFunc is called, not inlined

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.annotations = _annotations(fn)

    def __get__(self, instance, owner=None):
        """`obj.helper` of a func method: the func with `obj` as its first argument."""
        return self if instance is None else BoundFunc(self, instance)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"@qd.func '{self.fn.__name__}' can only be called from a @qd.kernel or another @qd.func.")


class RealFunc(Func):
    """A @qd.real_func: compiled once per signature into a function the kernel calls (real_functions.py)."""

    is_real = True

    def __init__(self, fn):
        from quadrants.frontend.real_functions import check_annotations

        check_annotations(fn)
        super().__init__(fn)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"@qd.real_func '{self.fn.__name__}' can only be called from a @qd.kernel or a @qd.func.")


class BoundFunc:
    """A @qd.func method read from an instance (or a CompoundRef to one): a call passes it as `self`."""

    __slots__ = ("func", "instance")

    def __init__(self, func, instance):
        self.func = func
        self.instance = instance

    def __call__(self, *args, **kwargs):
        self.func(*args, **kwargs)  # raises: funcs run only inside kernels


_fast_kernel_class = None

# Upstream's options. Compiled kernels are always cached on disk (fastcache, pure), and launches are not
# captured into CUDA graphs (graph, gpu_graph); graph=True (gpu_graph, its old name) allows qd.graph constructs
# in the kernel, and checkpoints=True qd.checkpoint yield/resume (checkpoint_kernel.py).
_ACCEPTED_KERNEL_OPTIONS = frozenset({"fastcache", "pure", "graph", "gpu_graph", "checkpoints"})


def kernel(fn=None, **options):
    """Decorates a Python function as a kernel, compiled on its first call for each argument specialization.

    Also usable as @qd.kernel(graph=True): upstream's options are accepted; graph=True allows qd.graph
    sections, the others change nothing here.
    """
    unknown = set(options) - _ACCEPTED_KERNEL_OPTIONS
    if unknown:
        raise TypeError(f"qd.kernel() got unexpected keyword argument(s) {', '.join(sorted(unknown))}; it accepts "
                        f"{', '.join(sorted(_ACCEPTED_KERNEL_OPTIONS))}.")
    if fn is None:
        return functools.partial(kernel, **options)
    if options.get("checkpoints") and not (options.get("graph") or options.get("gpu_graph")):
        code = fn.__code__
        raise QuadrantsSyntaxError(f"@qd.kernel(checkpoints=True) requires graph=True (kernel '{fn.__name__}')",
                                   code.co_filename, code.co_firstlineno,
                                   hint="write @qd.kernel(graph=True, checkpoints=True).")
    global _fast_kernel_class
    definition = KernelDefinition(fn, options)
    if definition.needs_python_dispatch:
        compiled = Kernel(definition).function
    else:
        if _fast_kernel_class is None:
            _fast_kernel_class = _make_fast_kernel_class()
        compiled = _fast_kernel_class(definition)
    return CheckpointKernel(compiled, definition) if options.get("checkpoints") else compiled


def func(fn=None, **options):
    """Decorates a Python function as a kernel function, inlined where a kernel calls it.

    Also usable as @qd.func(...): is_real_function=True makes it a @qd.real_func (called, not inlined).
    """
    unknown = set(options) - {"is_real_function", "requires_top_level"}
    if unknown:
        raise TypeError(f"qd.func() got unexpected keyword argument(s) {', '.join(sorted(unknown))}; it accepts "
                        "is_real_function and requires_top_level.")
    if fn is None:
        return functools.partial(func, **options)
    return RealFunc(fn) if options.get("is_real_function") else Func(fn)


_pure_warned = False


def pure(fn):
    """@qd.pure: upstream's deprecated spelling of @qd.kernel(fastcache=True). Every kernel is cached on disk
    here, so it returns the kernel unchanged (after a one-time DeprecationWarning, as upstream warns)."""
    global _pure_warned
    if not callable(fn):
        raise TypeError(f"@qd.pure decorates a kernel, but got {type(fn).__name__}.")
    if not _pure_warned:
        _pure_warned = True
        warnings.warn("@qd.pure is deprecated; use @qd.kernel(fastcache=True) (upstream removes it in v4.0.0).",
                      DeprecationWarning, stacklevel=2)
    return fn
