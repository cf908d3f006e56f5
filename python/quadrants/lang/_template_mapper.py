# python/quadrants/lang/_template_mapper.py: upstream's TemplateMapper, `kernel.mapper`: the argument features that tell
# a kernel's specializations apart, in upstream's terms (a compatibility view of our dispatch; it selects nothing).
#
# Upstream's mapper turns every launch's arguments into a key of features (_template_mapper_hotpath._extract_arg),
# numbers the distinct keys, and memoizes each call by the identities of its arguments. A mapper made directly,
# TemplateMapper(arguments, template_slot_locations), does exactly that through lookup(). A kernel's own mapper
# (KernelMapper) is told only of launches that compile (kernels/kernel.py calls record() or record_flat()), because
# our specializations are told apart by the C++ launcher's argument spec and dispatch.py's template key, with no
# Python per launch; its memo views are the kernel's live dispatch entries (kernels/dispatch_records.py):
#   mapping                 key -> index, in order of first compile
#   _mapping_cache          dispatch key -> (index, key) of each live entry: by template key (numbers by value,
#                           objects by identity) where upstream keys by every argument's identity, so runtime numbers
#                           make no entries here; emptied by qd.reset()
#   _mapping_cache_tracker  dispatch key -> [None, the finalizers that drop the entry when an object it names dies]
#   materialized            (kernel function, index, AutodiffMode.NONE) -> key of each specialization compiled since
#                           the last qd.reset(): kernel.materialized_kernels, whose upstream values are the compiled
#                           kernels (ours live in the C++ launchers); adjoint kernels are not listed
# Template objects other than numbers and strings are named weakly (upstream keeps fields themselves), so a record
# keeps no object alive. Where our specialization is coarser than upstream's key (an ndarray tagged with the identity
# layout and an untagged one share a compiled kernel here; needs_grad alone selects nothing), upstream counts one
# entry more.
#
# Genesis also writes `qd.lang._template_mapper.__builtins__["__debug__"]` after qd.init() to switch upstream's
# debug checks; here that write lands in Python's builtins and has no effect on kernels, whose checks follow
# qd.init(debug=...).
import weakref

from quadrants.base import registry
from quadrants.data.ndarray import Ndarray
from quadrants.data.tensor import Tensor, unwrap
from quadrants.frontend.data_oriented import is_data_oriented
from quadrants.kernels.dispatch_records import dispatch_records
from quadrants.lang._template_mapper_hotpath import _extract_arg
from quadrants.runtime.options import warn_once
from quadrants.types.annotations import Template
from quadrants.types.enums import AutodiffMode

_live_mappers = weakref.WeakSet()
_UNTRACKED = frozenset({int, float, bool, str, bytes, complex, type(None)})  # no weak references: not tracked


class _Members:
    """A dataclass argument as a launcher saw it: the members it was given, by attribute path; the others absent."""

    def __init__(self, values, path):
        self._values = values
        self._path = path

    def __getattr__(self, name):
        path = self._path + (name,)
        if path in self._values:
            return self._values[path]
        if any(p[:len(path)] == path for p in self._values):
            return _Members(self._values, path)
        raise AttributeError(name)


def _param_annotation(param):
    """A parameter's annotation as _extract_arg reads it: our KernelParam by its kind, upstream's ArgMetadata as
    written."""
    kind = getattr(param, "kind", None)
    if kind is None:
        return param.annotation
    if kind == "template":
        return Template
    if kind == "tensor":
        return Tensor
    if kind in ("struct", "array", "view"):
        return param.annotation
    return None  # scalars, vectors and qd.types.struct values: "#"


def _is_template(param):
    annotation = _param_annotation(param)
    return annotation is Template or isinstance(annotation, Template)


def _ndarray_ids(obj, out, seen):
    """The ids of the ndarrays reachable through the members of a data_oriented object (nested ones included): a
    member may be rebound between calls while the object stays the same."""
    if id(obj) in seen:
        return out
    seen.add(id(obj))
    for value in getattr(obj, "__dict__", {}).values():  # a data_oriented NamedTuple has no __dict__
        value = unwrap(value) if isinstance(value, Tensor) else value
        if isinstance(value, Ndarray):
            out.append(id(value))
        elif is_data_oriented(value):
            _ndarray_ids(value, out, seen)
    return out


class TemplateMapper:
    """Numbers the distinct feature keys of the calls it is asked about, memoized by argument identity."""

    def __init__(self, arguments, template_slot_locations=None):
        self.arguments = list(arguments)
        self.num_args = len(self.arguments)
        if template_slot_locations is None:
            template_slot_locations = [k for k, p in enumerate(self.arguments) if _is_template(p)]
        self.template_slot_locations = tuple(template_slot_locations)
        self.mapping = {}
        self.materialized = {}
        self._function = None  # the kernel's Python function, upstream's first part of a materialized key
        self._memo = {}  # arguments' identities -> (index, key)
        self._memo_trackers = {}  # arguments' identities -> [None, weak references that evict the entry]
        _live_mappers.add(self)

    @property
    def _mapping_cache(self):
        return self._memo

    @property
    def _mapping_cache_tracker(self):
        return self._memo_trackers

    def extract(self, raise_on_templated_floats, args):
        """The key of one call's arguments: a tuple of features, one per parameter."""
        return tuple(_extract_arg(raise_on_templated_floats, arg, _param_annotation(p), p.name)
                     for arg, p in zip(args, self.arguments))

    def _index(self, key):
        return self.mapping.setdefault(key, len(self.mapping))

    def lookup(self, raise_on_templated_floats, args):
        """(index, key) of a call: memoized while every argument the memo tracks is alive."""
        if len(args) != self.num_args:
            raise TypeError(f"{self.num_args} argument(s) needed but {len(args)} provided.")
        identities = tuple(id(a) for a in args)
        nested = []
        for k in self.template_slot_locations:
            if is_data_oriented(args[k]):
                _ndarray_ids(args[k], nested, set())
        identities += tuple(nested)
        if self._memo_trackers.get(identities):
            return self._memo[identities]
        key = self.extract(raise_on_templated_floats, args)
        found = (self._index(key), key)
        self._remember(identities, args, found)
        return found

    def _remember(self, identities, args, found):
        memo, trackers = self._memo, self._memo_trackers

        def evict(_ref, identities=identities):
            memo.pop(identities, None)
            trackers.pop(identities, None)

        try:
            tracked = [None] + [weakref.ref(a, evict) for a in args if type(a) not in _UNTRACKED]
        except TypeError as exc:  # e.g. a __slots__ dataclass without __weakref__: its calls are not memoized
            warn_once("template_mapper_memo", f"{exc}. Template mapper caching disabled.")
            return
        trackers[identities] = tracked
        memo[identities] = found

    def record(self, args):
        """A call with these arguments compiled a specialization; returns (index, key)."""
        key = self.extract(False, args)
        index = self._index(key)
        self.materialized[(self._function, index, AutodiffMode.NONE)] = key
        return index, key

    def record_flat(self, values_by_path):
        """As record(), from what a launcher was given: values keyed by attribute path from the parameter name."""
        args = [values_by_path[(p.name,)] if (p.name,) in values_by_path else _Members(values_by_path, (p.name,))
                for p in self.arguments]
        return self.record(args)

    def _forget(self):
        """qd.reset(): upstream's memo goes with the program that it belonged to."""
        self._memo.clear()
        self._memo_trackers.clear()
        self.materialized.clear()


class KernelMapper(TemplateMapper):
    """A kernel's mapper: told of the calls that compile; its memo views are the kernel's live dispatch entries."""

    def __init__(self, kernel):
        definition = kernel.definition
        TemplateMapper.__init__(self, definition.params, definition.template_positions)
        self._function = definition.fn
        self._kernel = weakref.ref(kernel)

    def _records(self):
        kernel = self._kernel()
        return dispatch_records(kernel) if kernel is not None else {}

    @property
    def _mapping_cache(self):
        return {key: record.mapped for key, record in self._records().items()}

    @property
    def _mapping_cache_tracker(self):
        return {key: record.trackers() for key, record in self._records().items()}


def mapper_of(kernel):
    """kernel.mapper: made on first use, kept on the kernel object."""
    mapper = getattr(kernel, "_qd_mapper", None)
    if mapper is None:
        mapper = kernel._qd_mapper = KernelMapper(kernel)
    return mapper


@registry.on_reset
def _forget_argument_identities():
    for mapper in list(_live_mappers):
        mapper._forget()


registry.provide("template_mapper_of", mapper_of)
