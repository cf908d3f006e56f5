# python/quadrants/kernels/kernel.py: @qd.kernel: parameters, dispatch to the C++ launcher, errors.
#
# A kernel without template or dataclass parameters *is* a `_core.Launcher` (a subclass), so a call
# converts the arguments in C++ and calls back `compile_fn` only when it meets a new argument
# specialization (dtype, ndim, element shape, contiguity, writability). Other kernels dispatch in
# Python first: the template values select an entry, whose launcher takes the regular arguments and
# the leaves of dataclass and data_oriented arguments (compound_params.py); see Kernel.
# Under qd.init(qd.python) neither compiles: a call runs the kernel's function as plain Python (_run_as_python).
import dataclasses
import functools
import pickle
import types
import warnings
import weakref

from quadrants.base import registry
from quadrants.base.errors import QuadrantsRuntimeTypeError, QuadrantsSyntaxError
from quadrants.data.ndarray import Ndarray
from quadrants.frontend import templated_floats
from quadrants.frontend.compound_params import (
    PlannedLeaves,
)
from quadrants.kernels.call_args import STREAM_WITH_AUTODIFF, binder_of
from quadrants.kernels.checkpoint_kernel import CheckpointKernel
from quadrants.kernels.definition import DeferredDefinitionError, KernelDefinition
from quadrants.kernels.dispatch_records import EntryRecord
from quadrants.kernels.fastcache_key import observe_call
from quadrants.kernels.dispatch import (
    identified_objects,
    make_entry_function,
    make_flat_args_function,
    make_kernel_function,
    make_key_function,
)
from quadrants.kernels import observed_launch
from quadrants.kernels.launch_records import LastLaunch, flat_dataclass_names, launch_stats_of, record_member_plans
from quadrants.kernels.pitfalls import warn_about_pitfalls
from quadrants.runtime import _core, init as _runtime
from quadrants.types.enums import AutodiffMode


class KernelMixin:
    """The Python-side API that both kinds of kernel objects share."""

    _qd_is_kernel = True  # how the frontend and data_oriented tell a kernel (frontend/funcs.py is_kernel)

    @property
    def src_ll_cache_observations(self):
        """Upstream's report of its fast cache for the last compile (SrcLlCacheObservations): a key made (a
        fastcache kernel with fast-cacheable arguments, kernels/fastcache_key.py), then the translation found in
        the translation cache (validated, loaded) or stored there. Other kernels report nothing, as upstream's do,
        although the translation cache serves them too."""
        return self.definition.cache_observations

    @src_ll_cache_observations.setter
    def src_ll_cache_observations(self, observations):
        self.definition.cache_observations = observations

    @property
    def fe_ll_cache_observations(self):
        """Upstream's report of its cache of compiled kernels (FeLlCacheObservations): cache_hit is set when a compile
        since qd.init() was answered by a cache of compiled code (this process's, or the disk cache's index from IR
        to library) instead of building it."""
        return self.definition.fe_ll_observations

    @fe_ll_cache_observations.setter
    def fe_ll_cache_observations(self, observations):
        self.definition.fe_ll_observations = observations

    @property
    def _last_compiled_kernel_data(self):
        """Upstream's handle of the specialization compiled last (CompiledKernelData), None before and after
        qd.reset()."""
        return self.definition.last_compiled

    @property
    def compiled_kernel_data_by_key(self):
        """Upstream's compiled specializations since qd.init(), by key: the argument specialization, with the
        template key for a Python-dispatched kernel."""
        return self.definition.compiled_by_key

    @property
    def autodiff_mode(self):
        """Upstream's kernel.autodiff_mode: AutodiffMode.VALIDATION while a qd.ad.Tape(validation=True) records
        the kernel, else NONE (imported here: quadrants.types imports this package)."""
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

    @property
    def mapper(self):
        """Upstream's kernel.mapper: the argument features of each specialization compiled (lang/_template_mapper.py,
        a compatibility view above this floor)."""
        return registry.get("template_mapper_of")(self)

    @property
    def launch_context_buffer_cache(self):
        """Upstream's kernel.launch_context_buffer_cache: its per-call memo of prepared launches, here a view of the
        kernel's live dispatch entries and their launchers (lang/_launch_context_cache.py)."""
        return registry.get("launch_context_cache_of")(self)

    @property
    def materialized_kernels(self):
        """Upstream's kernel.materialized_kernels: one entry per specialization compiled since qd.reset() (the
        mapper's `materialized`, lang/_template_mapper.py)."""
        return self.mapper.materialized

    @property
    def func(self):
        """Upstream's kernel.func: the decorated Python function."""
        return self.definition.fn

    @property
    def _primal(self):
        """Upstream's kernel._primal, the kernel object its tests read launch_stats from: the kernel itself."""
        return self

    @property
    def graph_do_while_levels(self):
        """Upstream's introspection of a graph kernel's qd.graph.do_while loops, outer before inner: per loop its
        flag as written, the loop it is nested in and the flag's argument position (GraphDoWhileLevel)."""
        return self.definition.graph_do_while_levels

    @property
    def graph_do_while_arg(self):
        """The outermost loop's flag as written (upstream's older name for levels[0]), None without one."""
        levels = self.graph_do_while_levels
        return levels[0].cond_arg_name if levels else None

    def grad(self, *args, **kwargs):
        """Runs the kernel's adjoint (reverse-mode autodiff, see quadrants.ad): what was added to the .grad of
        the fields and ndarrays it writes flows back into the .grad of those it reads. Takes the arguments as the
        kernel does: by position or by name, defaults filled in."""
        if kwargs or len(args) != len(self.definition.params):
            if "qd_stream" in kwargs:
                raise RuntimeError(STREAM_WITH_AUTODIFF)
            args = binder_of(self).bind(args, kwargs)
        return registry.get("kernel_grad")(self, args)  # autodiff (ad/_adjoint.py) sits above kernels

    @property
    def params(self):
        return self.definition.params

    @property
    def runtime_positions(self):
        return self.definition.runtime_positions


def _make_fast_kernel_class():
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
            compile_fn = self._qd_compile = observed_launch.CompileFn(compile_fn)  # materialize may compile ahead
            self._mapped_by_spec = {}  # spec -> the mapper's (index, features) of the call that compiled it
            _core.Launcher.__init__(self, definition.fn.__name__, definition.launcher_params(), compile_fn,
                                    result_fn=definition.result_fn, qualname=definition.fn.__qualname__)

        @property
        def launch_stats(self):
            """The kinds of arguments a launch passes (LaunchStats): fixed, as it has no templates or dataclasses."""
            return launch_stats_of(self.definition.launcher_params())

        def _release(self):
            self.clear()
            self._mapped_by_spec.clear()
            self.definition.forget_compiled()

    return FastKernel


def observe_calls(steps):
    """Runs every kernel call through steps.ensure_compiled / materialize / launch_kernel (upstream's per-call
    methods, which lang/kernel_impl.py's Kernel holds), or again straight to the launchers when steps is None."""
    observed_launch.observe(steps, _fast_kernel_class)


def _fast_compile(kernel_ref, spec, args):
    kernel = kernel_ref()
    _runtime.track_kernel(kernel)  # reset() empties the tracked set, so every compile registers again
    warn_about_pitfalls(kernel.fn.__name__, kernel.definition.launcher_params(), spec, args, stacklevel=4)
    kernel._mapped_by_spec[spec] = kernel.mapper.record(args)
    observe_call(kernel.definition, args)
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
        self._entry_records = {}  # template key -> EntryRecord of its entry (kernels/dispatch_records.py)
        names = [p.name for p in definition.params]
        cached = definition.cached_struct_keys()
        self._last_launch = LastLaunch()
        # Upstream's record, per template key, of the dataclass parameters and members its launches pass.
        self.used_py_dataclass_parameters_by_key_enforcing = {}
        function = make_kernel_function(self.fn.__name__, names, definition.template_slots, self._instances.get,
                                        self._miss, self._retry, self.definition.check_struct_arguments, cached,
                                        self._last_launch.slot)
        functools.update_wrapper(function, self.fn)
        function.__defaults__ = self.fn.__defaults__
        for attr in ("definition", "fn", "ir", "export_ir", "grad", "params", "runtime_positions"):
            setattr(function, attr, getattr(self, attr))
        function._qd_kernel = self
        function._primal = self
        self.function = function
        observed_launch.register(self)  # after self.function: observed calls replace its lookup
        # The kinds of arguments of the launcher built last (a new template key or argument layout builds one), which
        # is the last launch's as long as calls do not alternate between layouts (upstream records every launch).
        self.launch_stats = launch_stats_of([])

    @property
    def _last_launch_key(self):
        """Upstream's kernel._last_launch_key: the template key of the last launch (None before the first)."""
        return self._last_launch.key

    @property
    def launch_observations(self):
        """Upstream's kernel.launch_observations: whether the last launch found its compiled kernel in memory."""
        return self._last_launch.observations()

    @functools.cached_property
    def _key_of(self):
        """key(*args): a call's template key (dispatch.make_key_function), for autodiff's launchers only: made on
        first use rather than at decoration, where `import genesis` would compile one for each of 359 kernels."""
        definition = self.definition
        return make_key_function([p.name for p in definition.params], definition.template_slots,
                                 definition.cached_struct_keys())

    def _release(self):
        """qd.reset()/qd.init(): every launcher goes; the next call builds them under the new configuration."""
        self._instances.clear()
        self._entry_records.clear()
        self.definition.forget_compiled()

    def _retry(self, key, args):
        """A new specialization read a leaf the entry's launcher does not take: discover the leaves again."""
        self._instances.pop(key, None)
        return self.function(*args)

    def _miss(self, key, args):
        """The entry for a template key met for the first time (or since qd.reset())."""
        if _kernels_skipped():
            return _skip_call  # tracing fake tensors (qd.torch_op): no entry, nothing read from the arguments
        _runtime.config()  # initializes on first use
        _runtime.track_kernel(self)  # reset() and init() call _release
        if _runtime.is_python_arch():  # the entry is the function itself, until the next qd.init()
            entry = self._instances[key] = self.fn
            return entry
        definition = self.definition
        if not (definition.template_slots or definition.struct_positions or definition.value_struct_positions
                or definition.view_positions or definition.reads_twins):
            entry, compile_fn = self._make_launcher((), key)  # only `int`/`float` params: one per qd.init()
            self._entry_records[key] = EntryRecord(entry, compile_fn=compile_fn)
        else:
            entry = self._discover(key, args)

        entry = self._instances[key] = registry.get("wrap_kernel_entry")(self, entry)  # records calls under a qd.ad.Tape
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
                name, cls = definition.params[k].name, type(args[k]).__qualname__
                warnings.warn(f"Kernel '{self.fn.__name__}' parameter '{name}': passing a {cls} dataclass instance "
                              "into a qd.Template-annotated kernel parameter is deprecated (upstream Quadrants will "
                              f"make it an error); annotate the parameter with the dataclass type instead "
                              f"(`{name}: {type(args[k]).__name__}`).", DeprecationWarning, stacklevel=4)
        if templated_floats.enabled():
            templated_floats.check_template_arguments(self.fn.__name__, definition.params,
                                                      definition.template_positions, args)
        values = definition.slot_values(args)
        observe_call(definition, args)
        translation, regular, leaves = definition.discover(args, values)
        mapped = self.mapper.record(args)
        entry = self._make_entry(key, translation, regular, leaves, values)
        kept, finalizers = [], []
        for obj in identified_objects(tuple(values.values()), []):
            try:
                finalizers.append(weakref.finalize(obj, _forget_entry, self._instances, self._entry_records, key))
            except TypeError:  # no weak references: the entry keeps the object alive instead
                kept.append(obj)
        entry._kept = kept
        self._entry_records[key] = EntryRecord(entry._qd_launcher, finalizers, mapped, entry._qd_compile,
                                               entry._qd_flat_maker)
        return entry

    def _make_entry(self, key, translation, regular, leaves, values):
        """A launcher for the discovered leaves, and the generated function that calls it."""
        definition = self.definition
        name = self.fn.__name__
        plan = leaves.plan
        used = self.used_py_dataclass_parameters_by_key_enforcing[key] = flat_dataclass_names(definition, plan)
        record_member_plans(definition, used)
        entries = definition.launcher_params() + [leaf.launcher_entry() for leaf in plan]
        pending = {tuple(regular) + tuple(leaves.specs): translation}  # the first compile reuses discovery's IR
        held = _HeldValues(values)
        holder = []

        def compile_fn(spec, flat_args):
            warn_about_pitfalls(name, entries, spec, flat_args, stacklevel=6)
            self._last_launch.compiled()
            found = pending.pop(spec, None)
            pending.clear()
            if found is None:  # a new spec for this template key (the first was recorded by _discover)
                self.mapper.record_flat(_launched_values(definition, plan, held.values(), flat_args))
                n = len(regular)
                found = definition.translate(spec[:n], held.values(), PlannedLeaves(plan, spec[n:]))
            return definition.compile_translation(holder[0], found, (key, spec))

        compile_fn = observed_launch.CompileFn(compile_fn)
        launcher = _core.Launcher(name, entries, compile_fn, result_fn=definition.result_fn,
                                  qualname=self.fn.__qualname__)
        holder.append(launcher)
        self.launch_stats = launch_stats_of(entries)
        roots = {p.name: k for k, p in enumerate(definition.params)}
        arity, positions = len(definition.params), definition.runtime_positions
        entry = make_entry_function(name, arity, positions, plan, roots, launcher)
        entry._qd_launcher, entry._qd_compile = launcher, compile_fn
        entry._qd_flat_maker = functools.partial(make_flat_args_function, name, arity, positions, plan, roots)
        return entry

    def _make_launcher(self, template_values, key=()):
        definition = self.definition
        holder = []

        def compile_fn(spec, args):
            warn_about_pitfalls(self.fn.__name__, definition.launcher_params(), spec, args, stacklevel=5)
            self._last_launch.compiled()
            mapped = self.mapper.record(args)
            record = self._entry_records.get(key)
            if record is not None and record.mapped is None:
                record.mapped = mapped
            observe_call(definition, args)
            return definition.compile(holder[0], spec, template_values)

        compile_fn = observed_launch.CompileFn(compile_fn)
        launcher = _core.Launcher(self.fn.__name__, definition.launcher_params(), compile_fn,
                                  result_fn=definition.result_fn, qualname=self.fn.__qualname__)
        holder.append(launcher)
        self.launch_stats = launch_stats_of(definition.launcher_params())
        return launcher, compile_fn


def _forget_entry(instances, records, key):
    """An object an entry's key names died: the entry and its record go (the key's id() may be reused)."""
    instances.pop(key, None)
    records.pop(key, None)


def _launched_values(definition, plan, template_values, flat_args):
    """What an entry's launcher was given, keyed by attribute path from the parameter name: the template values,
    the regular arguments, then the planned leaves (an array in a qd.Tensor slot is a leaf at the slot's path)."""
    values = dict(template_values)
    n = len(definition.runtime_positions)
    for k, value in zip(definition.runtime_positions, flat_args[:n]):
        values[(definition.params[k].name,)] = value
    for leaf, value in zip(plan, flat_args[n:]):
        values[leaf.path] = value
    return values


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


_fast_kernel_class = None


def _run_as_python(kernel, *args, **kwargs):
    """A FastKernel's call under qd.init(qd.python): the kernel's function itself, on the arguments as given."""
    kwargs.pop("qd_stream", None)  # streams order CUDA work; a Python call is already in order
    return kernel.fn(*args, **kwargs)


@registry.on_init
def _switch_fast_kernel_calls(config):
    """Calls of FastKernels go straight to the C++ launcher (its tp_call slot) unless the python backend is in
    force; a __call__ set on the class takes that slot over, and deleting it gives the slot back."""
    global _fast_kernel_class
    if _fast_kernel_class is None:
        _fast_kernel_class = _make_fast_kernel_class()
    if config.arch is _runtime.python:
        _fast_kernel_class.__call__ = _run_as_python
    elif "__call__" in _fast_kernel_class.__dict__:
        del _fast_kernel_class.__call__


@registry.on_reset
def _launch_fast_kernels_again():
    if _fast_kernel_class is not None and "__call__" in _fast_kernel_class.__dict__:
        del _fast_kernel_class.__call__

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
    if not isinstance(fn, types.FunctionType) and hasattr(fn, "__wrapped__"):  # e.g. a perf_dispatch registration
        raise QuadrantsSyntaxError(f"Cant put kernel in front of other annotations: @qd.kernel was given {fn!r}, which "
                                   "another decorator made (error code: KERNEL_ANNOTATION_ORDER).",
                                   hint="put @qd.kernel directly on the function, under the other decorators.")
    if options.get("checkpoints") and not (options.get("graph") or options.get("gpu_graph")):
        code = fn.__code__
        raise QuadrantsSyntaxError(f"@qd.kernel(checkpoints=True) requires graph=True (kernel '{fn.__name__}')",
                                   code.co_filename, code.co_firstlineno,
                                   hint="write @qd.kernel(graph=True, checkpoints=True).")
    global _fast_kernel_class
    if getattr(fn, "_qd_pure", False):
        options.setdefault("pure", True)
    try:
        definition = KernelDefinition(fn, options)
    except DeferredDefinitionError as deferred:
        return _failing_kernel(fn, deferred.error)
    if definition.needs_python_dispatch:
        compiled = Kernel(definition).function
    else:
        if _fast_kernel_class is None:
            _fast_kernel_class = _make_fast_kernel_class()
            observed_launch.fast_class_made(_fast_kernel_class)
        compiled = _fast_kernel_class(definition)
    return CheckpointKernel(compiled, definition) if options.get("checkpoints") else compiled


def _failing_kernel(fn, error):
    """A kernel whose definition upstream rejects only when it is called: each call raises `error` (a fresh copy, so
    tracebacks do not pile up on one exception object)."""

    @functools.wraps(fn)
    def failing(*args, **kwargs):
        raise type(error)(*error.args) from None

    return failing


_pure_warned = False


def pure(fn):
    """@qd.pure: upstream's deprecated spelling of @qd.kernel(fastcache=True): marks the kernel pure, so its
    translation checks that it reads no number, string or field from outside its parameters (frontend/purity.py);
    every kernel is cached on disk here either way. Warns DeprecationWarning once, as upstream."""
    global _pure_warned
    definition = getattr(fn, "definition", None)
    if isinstance(definition, KernelDefinition):
        definition.options["pure"] = True
    elif isinstance(fn, types.FunctionType):  # @qd.kernel above @qd.pure: kernel() reads the mark
        fn._qd_pure = True
    else:
        raise TypeError(f"@qd.pure decorates a kernel (a @qd.kernel, or the function under it), but got "
                        f"{type(fn).__name__}.")
    if not _pure_warned:
        _pure_warned = True
        warnings.warn("@qd.pure is deprecated; use @qd.kernel(fastcache=True) (upstream removes it in v4.0.0).",
                      DeprecationWarning, stacklevel=2)
    return fn
