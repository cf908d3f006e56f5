# python/quadrants/kernels/translation_cache.py: a cache in front of the frontend, so a process whose kernels were
# translated before (by any process) finds their IR without running the AST -> IR translator.
#
# An entry is keyed on what selects a translation before it runs, and holds what the translation read, checked
# again before the IR is used (translation_recorder.py records it, translation_inputs.py describes and finds it):
#
# Hashed into the key: the entry format and the package's fingerprint (its version and, for a source checkout, the
#   size and modification time of every .py file of the package and of the compiled core), Python's and numpy's
#   versions; the kernel's module, qualified name, file and first line, its @qd.kernel options, its parameters'
#   kinds and annotations, its return annotation; the qd.init options a translation reads (arch, default_fp,
#   default_ip, debug / check_out_of_bound, fast_math, ad_stack_size, raise_on_templated_floats, whether the
#   target is CUDA); the argument specialization (dtype, ndim, element shape, contiguity, writability of each
#   array, dtype of each scalar); the description of every template argument and which of them are the same
#   object; the leaves' plan and specializations when the translation follows a plan; whether the call's
#   dataclass arguments are given.
# Checked before use (recorded while translating): the source text of the kernel and of every @qd.func,
#   @qd.real_func and plain Python function it inlined, transitively (file, lines, a digest of the lines), with
#   their default values and annotations; every global, closure value and builtin a function read by name (and,
#   for a builtin, that the module has no global of that name); every attribute read from a module, class,
#   object or argument (data_oriented and dataclass members included), by description; fields and ndarrays
#   used as globals by an identity-free description (dtype, shape, element shape, memory order, storage
#   contiguity, the SNode path with kinds, axes, extents and chunk sizes, offsets, whether grad/dual exist), and
#   the path that finds each, in the order the IR binds them; which of those objects are the same object; the
#   kind of each leaf (array or scalar member read per call) and, for the call being translated, the leaves'
#   specializations.
# NOT hashed nor checked, and why it need not be or cannot be:
# - globals read by quadrants' own functions (qd.math, the library) and the bodies of quadrants' and numpy's
#   functions: the package fingerprint stands for them. An installed package (site-packages) is fingerprinted by
#   its version and its compiled core only, so a reinstall of changed .py files under the same version number
#   keeps stale entries (qd.clear_cache() removes them); monkeypatching quadrants' modules is not seen either;
# - the source of a user class (only its dataclass members' annotations and data_oriented markers): its
#   attributes are read one by one and each read is checked; a method that is translated is checked by its source;
# - the state of a user object beyond the attributes the kernel read; the dunder methods (__eq__, __bool__,
#   __getitem__, __iter__) of user classes: a translation that applies an operator, a truth test through
#   qd.static, an item access or an iteration to a user object, or calls a user function at compile time, is
#   refused (translated in every process), as is one that prints (qd.static_print) or warns;
# - values inside the arrays of fields and ndarrays (a kernel never bakes them in), and qd.init's random_seed
#   (the seed is a field's value); the contents of numpy arrays are hashed (a kernel may index them at compile
#   time);
# - the lines of a function's file outside its own (from its first decorator to its last line: the last line
#   with code, then on through lines indented deeper than the first, so asserts `python -O` strips and a dead
#   branch's tail count), which the frontend does not translate: module globals are checked one read at a time;
# - a file changed on disk after this process read it (the frontend too translates the text it first read);
# - the iteration order of a set of strings (PYTHONHASHSEED): a kernel unrolling a loop over one differs from
#   process to process anyway;
# - environment variables other than the qd.init options above (QD_ARCH and the like reach the key through them),
#   and the C++ compiler and its flags: they are keyed by the compiled-library cache behind the IR;
# - a checkpoints kernel's table (frontend/checkpoint_scan.py: its labels, read from the module when each launch
#   scans the source again; which `with` is a checkpoint, which the translation's own reads check too); the
#   positions of its yield_on arrays are read from the IR (checkpoint_translate.flag_arg_ids).
# QD_TRANSLATION_CACHE=verify translates every hit again and raises if the IR, the globals or the line sources
# differ: the whole test suite run warm in that mode is the check that this list is complete.
# The disk format is JSON with a format number, one record per key in the cache's kernel records
# (runtime/kernel_store.py, upstream's kernel_compilation_manager/ layout: written when the session ends, the index
# holding each record's size and SHA-256, cleaned by upstream's policies, cleared with the compiled kernels), so a
# corrupted or truncated record is a miss and never used; bytes the index vouches for are trusted (the store refuses
# a folder, index or record that is not the user's own or that others can write). qd.init(offline_cache=False) and
# QD_TRANSLATION_CACHE=0 turn the cache off; QD_CACHE_DIR and qd.init(offline_cache_file_path=...) move it with the
# compiled kernels. The key also holds upstream's compile options (_UPSTREAM_KEYED_OPTIONS), as its cache's does.
import hashlib
import json
import logging
import os
import re
import sys
import threading

import numpy as np

from quadrants.base import log as _logging
from quadrants.data.field import Field
from quadrants.frontend.compound_params import DiscoverLeaves, PlannedLeaves, probe_spec
from quadrants.frontend.tensor_params import unwrap
from quadrants.kernels.translation_inputs import (
    MISSING,
    Undescribable,
    describe,
    freeze,
    read_description,
    walk,
)
from quadrants.kernels.translation_recorder import TranslationRecorder
from quadrants.runtime import _core, kernel_store

FORMAT = 1
_MAX_VARIANTS = 4  # translations kept per key (e.g. the same kernel over two configs of one class)
stats = {"hits": 0, "misses": 0, "translated": 0, "refused": {}}  # for tests and QD_LOG_LEVEL=debug

_package = None  # the package fingerprint, computed once per process
_config_key = (None, None, 0)  # (config object, its part of the key, qd.cfg's revision then)


# README's debug switches, read once per process: "0" turns the cache off; "verify" translates on every hit too and
# raises when the cached translation differs from the fresh one (the test suite's check that no input is missed).
_MODE = os.environ.get("QD_TRANSLATION_CACHE")
_SWITCHED_OFF = _MODE == "0"
_VERIFY = _MODE == "verify"


def enabled():
    return not _SWITCHED_OFF and _core.disk_cache_enabled() and kernel_store.current() is not None


# ---- the key ------------------------------------------------------------------------------------------------
def package_fingerprint():
    """The package's version; for a source checkout also every .py file's size and mtime (a developer's edit to the
    frontend changes what a translation gives without changing the version), and the compiled core's."""
    global _package
    if _package is None:
        package = sys.modules.get("quadrants")
        _package = repr((getattr(package, "__version__", "?"), _files.result()))
    return _package


def _files_digest():
    """The compiled core's size and mtime and, outside site-packages (a source checkout), every .py file's."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    entries = [repr(sys.version_info), np.__version__, _stat_text(_core.__file__)]
    if not re.search(r"[/\\](site|dist)-packages[/\\]", root):
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            entries += [_stat_text(os.path.join(folder, name)) for name in sorted(files) if name.endswith(".py")]
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()


def _stat_text(path):
    try:
        info = os.stat(path)
    except OSError:
        return path
    return f"{path}:{info.st_size}:{info.st_mtime_ns}"


class _Background:
    """A value computed on a thread started at import, so the first kernel call does not wait for its file
    system reads (about 250 stat calls; the import of numpy alone takes far longer). A process forked before it
    finished computes it again."""

    def __init__(self, compute):
        self._compute = compute
        self._value = None
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="quadrants-package-fingerprint", daemon=True)
        self._thread.start()

    def _run(self):
        self._value = self._compute()

    def result(self):
        # A value already set is final (the thread's last act): joining the finished thread would cost a warm first
        # call tens of microseconds for nothing.
        if self._value is None and self._pid == os.getpid():
            self._thread.join()
        if self._value is None:
            self._value = self._compute()
        return self._value


_files = _Background(_files_digest)


# The qd.init options upstream's offline cache keys a kernel on besides those a translation reads: most mean nothing
# to this compiler (runtime/options.py ignores them with a warning), but a program that changes one gets a record of
# its own, as upstream's does (the compiled library behind it is shared when the generated code is the same).
_UPSTREAM_KEYED_OPTIONS = (
    "cfg_optimization", "opt_level", "external_optimization_level", "move_loop_invariant_outside_if",
    "demote_dense_struct_fors", "advanced_optimization", "constant_folding", "kernel_profiler", "flatten_if",
    "make_thread_local", "make_block_local", "detect_read_only", "default_cpu_block_dim", "default_gpu_block_dim",
    "gpu_max_reg", "saturating_grid_dim", "ad_stack_experimental_enabled", "ad_stack_sparse_threshold_bytes",
    "real_matrix_scalarize", "force_scalarize_matrix", "half2_vectorization")


_CONFIG_OPTIONS = ("ad_stack_size", "raise_on_templated_floats", "check_out_of_bound") + _UPSTREAM_KEYED_OPTIONS


def config_part(config):
    """The qd.init options a translation reads, as they enter the key (a repr, memoized per config object)."""
    global _config_key
    revision = getattr(config.options, "_revision", 0)  # a write to qd.cfg changes what translations read
    if _config_key[0] is not config or _config_key[2] != revision:
        options = config.options
        read = [config.arch.name, config.default_fp.name, config.default_ip.name, bool(config.debug),
                bool(config.fast_math), bool(config.is_cuda)]
        # qd.cfg's values read from its dict: getattr would call CompileConfig.__getattr__ (Python) for each of the
        # 24 options, and raise and catch an AttributeError for each it lacks, on every process's first compile.
        values = getattr(options, "_values", None) if options is not None else {}
        get = values.get if isinstance(values, dict) else lambda name: getattr(options, name, None)
        read += [get(name) for name in _CONFIG_OPTIONS]
        _config_key = (config, repr(read), revision)
    return _config_key[1]


def _param_part(param):
    if param.kind in ("scalar", "vector", "array"):  # what the launcher checks, and an array's boundary= mode
        return (param.name, param.launcher_entry(), getattr(param.annotation, "boundary", None))
    return (param.name, param.kind, describe(param.annotation))


def _definition_part(definition):
    """The kernel's identity, options, parameters and return type: fixed at decoration, so described once."""
    found = definition.__dict__.get("_translation_key")
    if found is None:
        fn = definition.fn
        params = [_param_part(p) for p in definition.params]
        found = repr((fn.__module__, fn.__qualname__, fn.__code__.co_filename, fn.__code__.co_firstlineno,
                      sorted(definition.options.items()), params, describe(definition.annotations.get("return"))))
        definition._translation_key = found
    return found


def _slot_part(slot_values):
    """Template values by description, and which of them are one object (the translator shares their globals)."""
    firsts = {}
    parts = []
    for path, value in slot_values.items():
        parts.append((path, describe(value), firsts.setdefault(id(value), len(firsts))))
    return parts


def _leaves_part(leaves, struct_values):
    if isinstance(leaves, PlannedLeaves):
        return ("planned", [(leaf.path, leaf.kind, leaf.launcher_entry()) for leaf in leaves.plan], leaves.specs)
    return ("discover" if isinstance(leaves, DiscoverLeaves) else None, sorted(struct_values or ()))


def cache_key(definition, spec, slot_values, leaves, struct_values, config):
    text = repr((FORMAT, package_fingerprint(), _definition_part(definition), config_part(config), tuple(spec),
                 _slot_part(slot_values), _leaves_part(leaves, struct_values)))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _record_name(definition):
    """The kernel's name as it may appear in a file name (the record is `<name>-<key>.qdc`)."""
    return "".join(c if c in _PLAIN else "_" for c in definition.fn.__name__[:60])


_version_text = None


def _version():
    """The package version records are written under, for the `version` cleaning policy (once per process, as
    package_fingerprint)."""
    global _version_text
    if _version_text is None:
        _version_text = hashlib.sha256(package_fingerprint().encode()).hexdigest()[:16]
    return _version_text


# ---- lookup -------------------------------------------------------------------------------------------------
class LineSource:
    """What error messages read from a line's FunctionSource, as the translation recorded it."""

    __slots__ = ("filename", "_line", "_text", "fn")

    def __init__(self, filename, function_name, line, text):
        self.filename = filename
        self._line = line
        self._text = text
        self.fn = _Named(function_name)

    def source_line(self, line):
        return self._text if line == self._line else ""


class _Named:
    __slots__ = ("__name__",)

    def __init__(self, name):
        self.__name__ = name


class StoredLeaf:
    """A leaf of a stored plan: what the launcher and the dispatch read from compound_params.Leaf."""

    __slots__ = ("path", "kind", "_entry")

    def __init__(self, path, kind, entry):
        self.path = path
        self.kind = kind
        self._entry = entry

    @property
    def label(self):
        return ".".join(self.path)

    def launcher_entry(self):
        return self._entry


def lookup(definition, spec, slot_values, leaves, struct_values, config):
    """(key, the translation, or None): the cached translation when an entry's recorded reads all hold now."""
    try:
        key = cache_key(definition, spec, slot_values, leaves, struct_values, config)
    except (Undescribable, RecursionError) as exc:
        _refused(definition, f"a template argument: {exc}")
        return None, None
    data = kernel_store.current().read(key, _version())
    if data is None:
        return key, None
    try:
        entry = json.loads(data.decode("utf-8"))  # json.dumps wrote ASCII: no encoding to detect
        if entry.get("format") != FORMAT or entry.get("key") != key:
            return key, None
        roots = {"K": definition.fn, "S": slot_values, "V": struct_values or {}}
        for variant in entry["variants"]:
            found = _use(variant, roots, definition, leaves, struct_values)
            if not isinstance(found, str):
                stats["hits"] += 1
                return key, found
            if _logging.logger.isEnabledFor(logging.DEBUG):
                _logging.debug(f"kernel '{definition.fn.__name__}': a cached translation is stale: {found}")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):  # a stored entry of another shape: a miss
        return key, None
    return key, None


def _use(variant, roots, definition, leaves, struct_values):
    """The translation of one stored variant if everything it read reads the same now, else why not (a str)."""
    if not isinstance(variant["ir"], str):
        return "the entry holds no IR text"
    walked = {}
    for path, description in variant["reads"]:
        try:
            now = read_description(walk(freeze(path), roots, walked))
        except Undescribable as exc:  # e.g. a field that lost its storage: not what was recorded
            return f"{path} cannot be described now: {exc}"
        if now != description:
            return f"{path} was {description}, is {now}"
    classes, seen = {}, set()
    for path, number in variant["identities"]:
        obj = walk(freeze(path), roots, walked)
        if number in classes:
            if classes[number] is not obj:
                return f"{path} is another object than before"
        elif id(obj) in seen:
            return f"{path} is the same object as another path, which it was not"
        else:
            classes[number] = obj
            seen.add(id(obj))
    containers = [unwrap(walk(freeze(path), roots, walked)) for path in variant["containers"]]
    if any(c is MISSING or not hasattr(c, "_array") for c in containers):
        return "a global array is gone"
    if isinstance(leaves, DiscoverLeaves):
        plan = [StoredLeaf(freeze(path), kind, freeze(entry)) for path, kind, entry in variant["plan"]]
        specs = [_leaf_spec(definition, leaf, struct_values) for leaf in plan]
        if specs != [freeze(s) for s in variant["leaf_specs"]]:
            return "the leaves' specializations differ"
        leaves.plan[:] = plan
        leaves.specs[:] = specs
    for container in containers:  # as kernel_ref does: a kernel used the tree, so qd.root starts a new one
        if isinstance(container, Field) and container._place_node is not None:
            container._place_node._tree.used = True
    line_sources = {line: LineSource(filename, name, line, text) for line, filename, name, text in
                    variant["line_sources"]}
    return variant["ir"], containers, line_sources


def _leaf_spec(definition, leaf, struct_values):
    value = struct_values[leaf.path[0]]
    for name in leaf.path[1:]:
        value = getattr(unwrap(value), name)
    return probe_spec(definition.fn.__name__, leaf.launcher_entry(), unwrap(value))


# ---- recording and storing ----------------------------------------------------------------------------------
def recorder(definition, slot_values):
    found = TranslationRecorder(definition.fn, slot_values)
    found._read((("K",),), definition.fn)
    return found


def store(definition, key, recorder, translation, leaves):
    """Writes the translation with what it read (True); a refused recording is only counted (False)."""
    if recorder.refused is not None:
        _refused(definition, recorder.refused)
        return False
    text, _, line_sources = translation
    variant = {
        "reads": [[path, description] for path, description in recorder.reads.items()],
        "identities": [[path, number] for path, number in recorder.identities.items()],
        "containers": recorder.containers,
        "ir": text,
        "line_sources": [[line, source.filename, source.fn.__name__, source.source_line(line)]
                         for line, source in line_sources.items()],
    }
    if isinstance(leaves, DiscoverLeaves):
        variant["plan"] = [[leaf.path, leaf.kind, leaf.launcher_entry()] for leaf in leaves.plan]
        variant["leaf_specs"] = list(leaves.specs)
    store = kernel_store.current()
    variants = [variant]
    old = store.read(key, _version())
    if old is not None:
        try:
            kept = json.loads(old)["variants"]
        except (ValueError, KeyError, TypeError):
            kept = []
        # A variant replaces the one it would shadow: the same reads and, for a discovered plan, the same leaf
        # specializations (an ndarray member of another dtype reads alike but needs its own variant).
        def shadowing(v):
            return json.dumps([v.get("reads"), v.get("leaf_specs")])

        same = shadowing(variant)
        variants += [v for v in kept if isinstance(v, dict) and shadowing(v) != same]
    data = json.dumps({"format": FORMAT, "key": key, "variants": variants[:_MAX_VARIANTS]}, separators=(",", ":"))
    store.write(key, _record_name(definition), data.encode(), _version())
    return True


def _refused(definition, reason):
    refused = stats["refused"]
    refused[reason] = refused.get(reason, 0) + 1
    if _logging.logger.isEnabledFor(logging.DEBUG):
        _logging.debug(f"kernel '{definition.fn.__name__}': its translation is not cached: {reason}")


def translate(definition, spec, slot_values, leaves, struct_values, config, run):
    """The translation for one specialization: from the cache when an entry holds, else run(reads) and stored.

    run(reads) translates with `reads` (a ReadHooks) told of every value read. For a call that upstream would
    fast-cache (fastcache_key.observe_call made definition.cache_observations.cache_key_generated true), what the
    cache did is reported there as upstream's fast cache reports it: validated and loaded, or stored."""
    observed = definition.cache_observations
    fastcache = observed.cache_key_generated
    observed.cache_validated = observed.cache_loaded = observed.cache_stored = False
    definition.translation_found = False  # whether this translation came from the cache (any kernel)
    if not enabled():
        stats["translated"] += 1
        return run(None)
    key, found = lookup(definition, spec, slot_values, leaves, struct_values, config)
    if found is not None:
        definition.translation_found = True
        if fastcache:  # every recorded read held, so the IR is used
            observed.cache_validated = observed.cache_loaded = True
        if _VERIFY:
            _verify(definition, found, leaves, run)
        return found
    stats["misses"] += 1
    stats["translated"] += 1
    if key is None:
        return run(None)
    reads = recorder(definition, slot_values)
    translation = run(reads)
    stored = store(definition, key, reads, translation, leaves)
    observed.cache_stored = fastcache and stored
    return translation


def _verify(definition, found, leaves, run):
    """QD_TRANSLATION_CACHE=verify: a hit must equal a fresh translation (IR, globals, line sources, leaf plan)."""
    saved = None
    if isinstance(leaves, DiscoverLeaves):
        saved = (list(leaves.plan), list(leaves.specs))
        leaves.plan.clear()
        leaves.specs.clear()
    fresh = run(None)
    differences = []
    if fresh[0] != found[0]:
        differences.append(_first_difference(found[0], fresh[0]))
    if [id(c) for c in fresh[1]] != [id(c) for c in found[1]]:
        differences.append("the global arrays differ")
    if _lines(fresh[2]) != _lines(found[2]):
        differences.append("the line sources differ")
    if saved is not None:
        now = [(tuple(leaf.path), leaf.kind, leaf.launcher_entry()) for leaf in leaves.plan], list(leaves.specs)
        if now != ([(tuple(leaf.path), leaf.kind, leaf.launcher_entry()) for leaf in saved[0]], saved[1]):
            differences.append("the leaves' plan differs")
        leaves.plan[:], leaves.specs[:] = saved
    if differences:
        raise AssertionError(f"translation_cache: the cached translation of kernel '{definition.fn.__name__}' "
                             f"({definition.fn.__code__.co_filename}) is stale: " + "; ".join(differences))


def _lines(line_sources):
    return {line: (source.filename, source.fn.__name__, source.source_line(line))
            for line, source in line_sources.items()}


def _first_difference(cached, fresh):
    cached_lines, fresh_lines = cached.splitlines(), fresh.splitlines()
    for k, (a, b) in enumerate(zip(cached_lines, fresh_lines)):
        if a != b:
            return f"IR line {k + 1} is cached as {a.strip()!r}, translates to {b.strip()!r}"
    return f"the IR has {len(cached_lines)} lines cached, {len(fresh_lines)} fresh"
