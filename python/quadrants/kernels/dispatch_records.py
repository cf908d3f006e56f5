# python/quadrants/kernels/dispatch_records.py: what a kernel keeps about each of its live dispatch entries, read by
# upstream's views of its per-call caches (lang/_template_mapper.py, lang/_launch_context_cache.py).
#
# Upstream memoizes every call twice by the identities of its arguments: the template mapper (arguments -> which
# specialization) and the launch-context buffer cache (arguments -> a packed launch context). Ours has one memo,
# and it is keyed by the template key rather than by every argument's identity (kernels/dispatch.py): a
# Python-dispatched kernel's `_instances` maps a template key to an entry that calls its launcher, and the entry
# dies with the objects its key names (weakref.finalize); a kernel dispatched in C++ keeps its compiled
# specializations in its launcher, keyed by the argument specialization, until qd.reset(). A record is made when an
# entry is made, never per call. Runtime numbers select nothing here, so where upstream memoizes a call per distinct
# int object (test_cache.py's "offset"), ours has one entry.


class EntryRecord:
    """One live entry: the launcher that runs it, the finalizers that drop it when an object its key names dies
    (upstream's tracker of weak references), and the mapper's (index, features) of the call that made it (None
    until that call compiled); for kernels/observed_launch.py, the launcher's compile_fn (a CompileFn) and what
    makes the function that gives the launcher's arguments from the call's (None: the call's own)."""

    __slots__ = ("launcher", "finalizers", "mapped", "compile_fn", "flat_maker", "_flat")

    def __init__(self, launcher, finalizers=(), mapped=None, compile_fn=None, flat_maker=None):
        self.launcher = launcher
        self.finalizers = list(finalizers)
        self.mapped = mapped
        self.compile_fn = compile_fn
        self.flat_maker = flat_maker
        self._flat = None

    def launcher_args(self, args):
        """The arguments the entry's launcher takes for a call with `args` (its function is made on first use:
        only observed calls need it)."""
        if self.flat_maker is None:
            return args
        if self._flat is None:
            self._flat = self.flat_maker()
        return self._flat(*args)

    def trackers(self):
        """Upstream's tracker list: None first (so an entry tracking no object is still truthy), then one live
        finalizer per object the entry's key names."""
        return [None] + [f for f in self.finalizers if f.alive]


def dispatch_records(kernel):
    """{dispatch key: EntryRecord} of the kernel's live entries: template keys of a Python-dispatched kernel, the
    argument specializations a C++-dispatched kernel compiled since qd.init()."""
    instances = getattr(kernel, "_instances", None)
    if instances is not None:
        records = kernel._entry_records
        return {key: records[key] for key in list(instances) if key in records}
    mapped = getattr(kernel, "_mapped_by_spec", {})
    return {spec: EntryRecord(kernel, (), mapped.get(spec)) for spec in list(kernel.definition.compiled_by_key)}


__all__ = ["EntryRecord", "dispatch_records"]
