# python/quadrants/lang/_template_mapper.py: upstream's TemplateMapper, `kernel.mapper`: the specializations a kernel
# compiled, in upstream's terms (a compatibility view; it selects nothing).
#
# Upstream's mapper turns every launch's arguments into a key of features (_template_mapper_hotpath._extract_arg)
# and numbers the distinct keys. Ours are told apart by the C++ launcher's argument spec and dispatch.py's
# template key, with no Python per launch, so this mapper is told only of launches that compile (kernels/kernel.py
# calls record() or record_flat()), and keys their arguments as upstream would:
#   mapping         key -> index, in order of first compile
#   _mapping_cache  the ids of the compiling call's arguments -> (index, key); emptied by qd.reset(), as upstream
#                   empties its per-argument-identity cache when the program goes
#   materialized   (kernel function, index, AutodiffMode.NONE) -> key of each specialization compiled since the
#                   last qd.reset(): kernel.materialized_kernels, whose upstream values are the compiled kernels
#                   (ours live in the C++ launchers); adjoint kernels are not listed
# A launch that compiles nothing adds nothing. Template objects other than numbers and strings are named weakly
# (upstream keeps fields themselves), so a record keeps no object alive. Where our specialization is coarser than upstream's key (an
# ndarray tagged with the identity layout and an untagged one share a compiled kernel here; needs_grad alone
# selects nothing), upstream counts one entry more.
#
# Genesis also writes `qd.lang._template_mapper.__builtins__["__debug__"]` after qd.init() to switch upstream's
# debug checks; here that write lands in Python's builtins and has no effect on kernels, whose checks follow
# qd.init(debug=...).
import weakref

from quadrants.base import registry
from quadrants.data.tensor import Tensor, unwrap
from quadrants.lang._template_mapper_hotpath import _extract_arg
from quadrants.types.annotations import Template
from quadrants.types.enums import AutodiffMode

_live_mappers = weakref.WeakSet()


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
    """A kernel parameter's annotation as _extract_arg reads it (KernelParam.kind decides)."""
    if param.kind == "template":
        return Template
    if param.kind == "tensor":
        return Tensor
    if param.kind in ("struct", "array", "view"):
        return param.annotation
    return None  # scalars, vectors and qd.types.struct values: "#"


class TemplateMapper:
    """The argument features of each specialization a kernel compiled (see the head of this file)."""

    def __init__(self, params):
        self.arguments = params
        self.num_args = len(params)
        self.mapping = {}
        self._mapping_cache = {}
        self.materialized = {}
        self._function = None  # the kernel's Python function, upstream's first part of a materialized key
        _live_mappers.add(self)

    def extract(self, raise_on_templated_floats, args):
        """The key of one call's arguments: a tuple of features, one per parameter."""
        return tuple(_extract_arg(raise_on_templated_floats, arg, _param_annotation(p), p.name)
                     for arg, p in zip(args, self.arguments))

    def record(self, args):
        """A call with these arguments compiled a specialization; returns (index, key)."""
        key = self.extract(False, args)
        index = self.mapping.setdefault(key, len(self.mapping))
        self._mapping_cache[tuple(id(unwrap(a)) for a in args)] = (index, key)
        self.materialized[(self._function, index, AutodiffMode.NONE)] = key
        return index, key

    def record_flat(self, values_by_path):
        """As record(), from what a launcher was given: values keyed by attribute path from the parameter name."""
        args = [values_by_path[(p.name,)] if (p.name,) in values_by_path else _Members(values_by_path, (p.name,))
                for p in self.arguments]
        return self.record(args)


def mapper_of(kernel):
    """kernel.mapper: made on first use, kept on the kernel object."""
    mapper = getattr(kernel, "_qd_mapper", None)
    if mapper is None:
        mapper = kernel._qd_mapper = TemplateMapper(kernel.definition.params)
        mapper._function = kernel.definition.fn
    return mapper


@registry.on_reset
def _forget_argument_identities():
    for mapper in list(_live_mappers):
        mapper._mapping_cache.clear()
        mapper.materialized.clear()


registry.provide("template_mapper_of", mapper_of)
