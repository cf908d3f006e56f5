# python/quadrants/frontend/funcs.py: @qd.func and @qd.real_func objects: what the translator inlines or calls.
#
# A Func holds the Python function and its evaluated annotations; the translator (calls.py, real_functions.py)
# reads them when a kernel calls it. Kernels (kernels/) are the objects one floor up; the frontend recognizes them
# by their `_qd_is_kernel` / `_qd_kernel` marks, so that it need not import them.
import functools
import inspect
import types

from quadrants.base.python_scope import KernelScopeError
from quadrants.frontend.source import function_source
from quadrants.runtime import init as _runtime


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


def check_annotations(fn):
    """At decoration, as upstream: every parameter but a method's `self` needs an annotation."""
    annotations = _annotations(fn)
    source = function_source(fn)
    for k, param in enumerate(inspect.signature(fn).parameters.values()):
        if k == 0 and param.name == "self":
            continue
        if param.name not in annotations:
            node = next((a for a in source.tree.args.args if a.arg == param.name), source.tree)
            raise source.error(node, f"Parameter '{param.name}' of @qd.real_func '{fn.__name__}' must be type "
                               "annotated.", "annotate it, e.g. 'x: qd.i32', 'v: qd.math.vec3' or 'f: qd.template()'.",
                               kind="syntax")


class Func:
    """A @qd.func: inlined into the kernels that call it."""

    is_real = False  # a RealFunc is called, not inlined
    # @qd.func(requires_top_level=True): callable only among a kernel's top-level statements, where its loops
    # stay the kernel's parallel loops (func_calls.py refuses other call sites, as upstream)
    requires_top_level = False

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.annotations = _annotations(fn)

    def __get__(self, instance, owner=None):
        """`obj.helper` of a func method: the func with `obj` as its first argument."""
        return self if instance is None else BoundFunc(self, instance)

    def __call__(self, *args, **kwargs):
        # Kernels and funcs run as plain Python under qd.init(qd.python), so a func is called as written there.
        if _runtime.is_python_arch():
            return self.fn(*args, **kwargs)
        raise KernelScopeError(f"@qd.func '{self.fn.__name__}' can only be called from a @qd.kernel or another "
                               "@qd.func.")


class PyFunc(Func):
    """A @qd.pyfunc: a @qd.func inside kernels, and the plain Python function when called from Python."""

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


class RealFunc(Func):
    """A @qd.real_func: compiled once per signature into a function the kernel calls (real_functions.py)."""

    is_real = True

    def __init__(self, fn):
        check_annotations(fn)
        super().__init__(fn)

    def __call__(self, *args, **kwargs):
        if _runtime.is_python_arch():  # see Func.__call__
            return self.fn(*args, **kwargs)
        raise KernelScopeError(f"@qd.real_func '{self.fn.__name__}' can only be called from a @qd.kernel or a "
                               "@qd.func.")


class BoundFunc:
    """A @qd.func method read from an instance (or a CompoundRef to one): a call passes it as `self`."""

    __slots__ = ("func", "instance")

    def __init__(self, func, instance):
        self.func = func
        self.instance = instance

    def __call__(self, *args, **kwargs):
        # A @qd.func raises (it runs only inside kernels), except under qd.init(qd.python).
        return self.func(self.instance, *args, **kwargs)


def func(fn=None, **options):
    """Decorates a Python function as a kernel function, inlined where a kernel calls it.

    Also usable as @qd.func(...): is_real_function=True makes it a @qd.real_func (called, not inlined);
    requires_top_level=True makes a call anywhere but among the kernel's top-level statements (directly, or through
    funcs called there; a qd.static loop or a qd.graph.do_while body counts as top level) a compile error.
    """
    unknown = set(options) - {"is_real_function", "requires_top_level"}
    if unknown:
        raise TypeError(f"qd.func() got unexpected keyword argument(s) {', '.join(sorted(unknown))}; it accepts "
                        "is_real_function and requires_top_level.")
    if fn is None:
        return functools.partial(func, **options)
    if options.get("is_real_function"):
        if options.get("requires_top_level"):
            raise TypeError("qd.func(): requires_top_level=True applies to inlined funcs, not to is_real_function=True "
                            "ones (a real function is called, so its loops are never the kernel's).")
        return RealFunc(fn)
    made = Func(fn)
    made.requires_top_level = bool(options.get("requires_top_level", False))
    return made


def pyfunc(fn):
    """@qd.pyfunc: a function callable both in kernels, where it is inlined as a @qd.func, and in Python scope,
    where it runs as written (upstream's qd.pyfunc)."""
    return PyFunc(fn)


def is_kernel(value):
    """Whether `value` is a kernel (or a kernel method bound to an instance): kernels/kernel.py marks them."""
    if isinstance(value, types.MethodType):
        value = value.__func__
    return getattr(type(value), "_qd_is_kernel", False) or getattr(value, "_qd_kernel", None) is not None
