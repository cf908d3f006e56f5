# python/quadrants/lang/kernels.py: @qd.kernel and @qd.func: parameters, dispatch to the C++ launcher, errors.
#
# A kernel without template parameters *is* a `_core.Launcher` (a subclass), so a call converts the
# arguments in C++ and calls back `compile_fn` only when it meets a new argument specialization
# (dtype, ndim, element shape, contiguity, writability). Template kernels first pick a launcher by
# their template values in Python, and take keyword arguments; see Kernel.
import functools
import inspect
import numbers
import weakref

from .. import _runtime
from .errors import QuadrantsSyntaxError, QuadrantsTypeError
from .pitfalls import warn_about_pitfalls
from .source import function_source
from .translator import translate_kernel
from .types import NdarrayType, Template, VectorType, scalar_dtype_name


class KernelParam:
    """One kernel parameter: kind is 'scalar', 'array' or 'template'."""

    def __init__(self, name, kind, annotation):
        self.name = name
        self.kind = kind
        self.annotation = annotation

    def launcher_entry(self):
        """The tuple `_core.Launcher` expects for this (non-template) parameter."""
        if self.kind == "scalar":
            return ("scalar", self.name, scalar_dtype_name(self.annotation))
        return ("array", self.name, self.annotation.dtype_name(), self.annotation.ndim,
                tuple(self.annotation.element_shape()))


def _annotations(fn):
    """The evaluated annotations of `fn` (string annotations are evaluated in its globals)."""
    result = {}
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        if isinstance(annotation, str):
            annotation = eval(annotation, fn.__globals__)  # noqa: S307 - the user's own annotation text
        result[name] = annotation
    return result


def _param_error(fn, param_name, message, hint):
    source = function_source(fn)
    node = next((a for a in source.tree.args.args if a.arg == param_name), source.tree)
    return source.error(node, message, hint, kind="type")


def _kernel_params(fn, annotations):
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' must be a plain positional parameter.",
                               "remove *args, **kwargs and keyword-only markers from the kernel's signature.")
        annotation = annotations.get(p.name)
        if annotation is None:
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' has no type annotation.",
                               f"annotate it, e.g. '{p.name}: qd.f32', '{p.name}: qd.types.ndarray()' or "
                               f"'{p.name}: qd.template()'.")
        if isinstance(annotation, Template) or annotation is Template:
            params.append(KernelParam(p.name, "template", annotation))
        elif isinstance(annotation, NdarrayType) or annotation is NdarrayType:
            params.append(KernelParam(p.name, "array", annotation if annotation is not NdarrayType else NdarrayType()))
        elif isinstance(annotation, VectorType):
            raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' is a vector or matrix, which kernels do "
                               "not take by value.", "pass it in a qd.types.ndarray(dtype=...) of one element.")
        else:
            try:
                scalar_dtype_name(annotation)
            except TypeError:
                raise _param_error(fn, p.name, f"Kernel parameter '{p.name}' has the annotation {annotation!r}, "
                                   "which is not a dtype, qd.types.ndarray() or qd.template().", None) from None
            params.append(KernelParam(p.name, "scalar", annotation))
    return params


def _depends_on_defaults(param):
    """Whether the parameter's dtype comes from qd.init()'s default_fp/default_ip (int, float, or a
    vector type without a dtype), so its launcher must be rebuilt after every init."""
    if param.kind == "scalar":
        return param.annotation in (int, float)
    if param.kind != "array":
        return False
    dtype = param.annotation.dtype
    if isinstance(dtype, VectorType):
        dtype = dtype.dtype
        return dtype is None or dtype in (int, float)
    return dtype in (int, float)


def _template_key(value):
    """Template instances are told apart by value for numbers and strings, by identity otherwise."""
    if value is None or isinstance(value, (numbers.Number, str, bool)):
        return (type(value), value)
    return ("id", id(value))


class KernelDefinition:
    """What a kernel is, apart from how it is called: parameters, return type, translation."""

    def __init__(self, fn):
        self.fn = fn
        self.annotations = _annotations(fn)
        self.params = _kernel_params(fn, self.annotations)
        self.template_positions = [k for k, p in enumerate(self.params) if p.kind == "template"]
        self.runtime_positions = [k for k, p in enumerate(self.params) if p.kind != "template"]
        self.returns_name()  # reports a bad return annotation at decoration time

    @property
    def needs_python_dispatch(self):
        """Templates pick a launcher per value; `int`/`float` params take their dtype from qd.init()."""
        return bool(self.template_positions) or any(_depends_on_defaults(p) for p in self.params)

    def returns_name(self):
        annotation = self.annotations.get("return")
        if annotation is None:
            return None
        try:
            return scalar_dtype_name(annotation)
        except TypeError:
            raise _param_error(self.fn, None, f"Kernel '{self.fn.__name__}' returns {annotation!r}, but kernels "
                               "can only return a scalar.", "annotate the return type as a dtype, e.g. -> qd.f32.") from None

    def translate(self, spec, template_values):
        return translate_kernel(self.fn, self.fn.__name__, self.params, spec, template_values,
                                self.returns_name(), _runtime.config())

    def launcher_params(self):
        return [self.params[k].launcher_entry() for k in self.runtime_positions]

    def compile(self, launcher, spec, template_values):
        """The launcher's compile_fn: IR for `spec`, globals handed to the launcher, then C++ compiles."""
        from .. import _core

        text, containers, line_sources = self.translate(spec, template_values)
        launcher.set_globals([c._array for c in containers])
        config = _runtime.config()
        try:
            if config.is_cuda:
                return _core.compile_kernel_cuda(text, *config.cuda_properties["compute_capability"])
            if _runtime.CHECK_CUDA_CODEGEN:  # CPU machines still compile-check the CUDA code
                _core.compile_kernel_cuda(text, 9, 0)
            return _core.compile_kernel(text)
        except _core.KernelUserError as exc:
            raise _located_error(exc, line_sources) from None


class KernelMixin:
    """The Python-side API that both kinds of kernel objects share."""

    def export_ir(self, *example_args):
        """The IR text of the specialization that these example arguments select, for C++ programs.

        Compile it with qd::compile_kernel and run it with qd::launch_kernel (include/quadrants/launch.h).
        Template arguments are baked in; fields the kernel uses become extra array parameters at the end.
        """
        from .. import _core

        definition = self.definition
        if len(example_args) != len(definition.params):
            raise TypeError(f"export_ir() needs one example argument per parameter of '{self.fn.__name__}' "
                            f"({len(definition.params)}), but got {len(example_args)}.")
        probe = _core.Launcher(self.fn.__name__, definition.launcher_params(), None)
        spec = probe.spec_of(*[example_args[k] for k in definition.runtime_positions])
        template_values = tuple(example_args[k] for k in definition.template_positions)
        return self.ir(spec, template_values)

    def ir(self, spec, template_values=()):
        """The IR text for one specialization (see _core.Launcher for the spec format), for tests and debugging."""
        return self.definition.translate(spec, template_values)[0]

    @property
    def params(self):
        return self.definition.params

    @property
    def runtime_positions(self):
        return self.definition.runtime_positions


def _make_fast_kernel_class():
    from .. import _core

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
            _core.Launcher.__init__(self, definition.fn.__name__, definition.launcher_params(), compile_fn)

        def _release(self):
            self.clear()

    return FastKernel


def _fast_compile(kernel_ref, spec, args):
    kernel = kernel_ref()
    _runtime.track(kernel)  # reset() empties the tracked set, so every compile registers again
    warn_about_pitfalls(kernel.fn.__name__, kernel.definition.launcher_params(), spec, args, stacklevel=3)
    return kernel.definition.compile(kernel, spec, ())


class Kernel(KernelMixin):
    """A kernel dispatched in Python: template parameters, `int`/`float` parameters, keyword arguments."""

    def __init__(self, definition):
        functools.update_wrapper(self, definition.fn)
        self.definition = definition
        self.fn = definition.fn
        self._generation = None
        self._launch = None
        self._instances = {}

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = _bind_keywords(self.fn, args, kwargs)
        if self._generation != _runtime.generation():
            self._refresh()
        return self._launch(*args)

    def _refresh(self):
        """(Re)creates the launchers: a new qd.init() may change dtypes, debug mode and fields."""
        _runtime.config()  # initializes on first use, which itself bumps the generation
        self._instances = {}
        if self.definition.template_positions:
            self._launch = self._call_template
        else:
            self._launch = self._make_launcher(())
        self._generation = _runtime.generation()

    def _call_template(self, *args):
        definition = self.definition
        if len(args) != len(definition.params):
            names = ", ".join(p.name for p in definition.params)
            raise TypeError(f"Kernel '{self.fn.__name__}' takes {len(definition.params)} argument(s) ({names}), "
                            f"but {len(args)} were given.")
        values = tuple(args[k] for k in definition.template_positions)
        key = tuple(_template_key(v) for v in values)
        entry = self._instances.get(key)
        if entry is None:
            # The values are kept alive with the launcher, so an id() in the key is never reused.
            entry = self._instances[key] = (self._make_launcher(values), values)
        return entry[0](*[args[k] for k in definition.runtime_positions])

    def _make_launcher(self, template_values):
        from .. import _core

        definition = self.definition
        holder = []

        def compile_fn(spec, args):
            warn_about_pitfalls(self.fn.__name__, definition.launcher_params(), spec, args, stacklevel=4)
            return definition.compile(holder[0], spec, template_values)

        launcher = _core.Launcher(self.fn.__name__, definition.launcher_params(), compile_fn)
        holder.append(launcher)
        return launcher


def _bind_keywords(fn, args, kwargs):
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"Kernel '{fn.__name__}': {exc}.") from None
    return bound.args


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

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.annotations = _annotations(fn)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"@qd.func '{self.fn.__name__}' can only be called from a @qd.kernel or another @qd.func.")


_fast_kernel_class = None


def kernel(fn):
    """Decorates a Python function as a kernel, compiled on its first call for each argument specialization."""
    global _fast_kernel_class
    definition = KernelDefinition(fn)
    if definition.needs_python_dispatch:
        return Kernel(definition)
    if _fast_kernel_class is None:
        _fast_kernel_class = _make_fast_kernel_class()
    return _fast_kernel_class(definition)


def func(fn):
    """Decorates a Python function as a kernel function, inlined where a kernel calls it."""
    return Func(fn)
