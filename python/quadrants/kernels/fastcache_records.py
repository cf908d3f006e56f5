# python/quadrants/kernels/fastcache_records.py: upstream's fast-cache records (its src_hasher.store/load and
# python_side_cache): per fast-cache key, the compiled kernel's own key and the functions whose sources it stands for.
"""A record is one JSON file, `<key>.cache.txt` in python_side_cache/ of the cache folder (qd.init's
offline_cache_file_path), written whole through a temporary file and os.replace, touched when read (for an LRU
cleaner). load() returns it only while every function it lists still has the digest recorded (fastcache_key.py's
function hashing), so an edited @qd.func invalidates the kernels that inlined it. A record that cannot be read or
parsed is a miss, with a warning.

Kernels here do not need these records: the translation cache (translation_cache.py) keys and validates translations
itself. The records are upstream's interface, kept with its contents (schema v4: graph_do_while levels, checkpoint
yield_on tables, and the qualified names of IntEnum checkpoint labels so that they round-trip as enum members)."""
import dataclasses
import enum
import importlib
import json
import os
import tempfile
import warnings
from itertools import islice

from quadrants.kernels.fastcache_args import hash_iterable_strings
from quadrants.runtime import _core

FOLDER = "python_side_cache"


@dataclasses.dataclass(frozen=True)
class FunctionSourceInfo:
    """A function's place in its file: lines start_lineno..end_lineno (1-based, inclusive)."""

    function_name: str
    filepath: str
    start_lineno: int
    end_lineno: int


@dataclasses.dataclass(frozen=True)
class HashedFunctionSourceInfo:
    """A function's source lines (FunctionSourceInfo) with the digest they had when it was made."""

    function_source_info: FunctionSourceInfo
    hash: str


@dataclasses.dataclass
class CacheValue:
    """What a record holds (upstream's field names and defaults)."""

    frontend_cache_key: str
    hashed_function_source_infos: list
    used_py_dataclass_parameters: set
    graph_do_while_levels: list = None  # (flag as written, parent level, argument id) per level, or None
    checkpoint_yield_on_args: list = dataclasses.field(default_factory=list)
    checkpoint_yield_on_cpp_arg_ids: list = dataclasses.field(default_factory=list)
    checkpoint_user_labels_by_cp_id: list = dataclasses.field(default_factory=list)
    checkpoint_user_label_enum_qualnames: list = dataclasses.field(default_factory=list)

    def to_json(self):
        data = dataclasses.asdict(self)
        data["used_py_dataclass_parameters"] = sorted(self.used_py_dataclass_parameters)
        data["checkpoint_user_labels_by_cp_id"] = [None if v is None else int(v)
                                                   for v in self.checkpoint_user_labels_by_cp_id]
        return json.dumps(data)

    @classmethod
    def from_json(cls, text):
        """The record in `text`; ValueError (json's included) or TypeError/KeyError when it has another shape."""
        data = json.loads(text)
        infos = [HashedFunctionSourceInfo(FunctionSourceInfo(**item["function_source_info"]), str(item["hash"]))
                 for item in data["hashed_function_source_infos"]]
        levels = data.get("graph_do_while_levels")
        return cls(
            frontend_cache_key=str(data["frontend_cache_key"]),
            hashed_function_source_infos=infos,
            used_py_dataclass_parameters=set(data["used_py_dataclass_parameters"]),
            graph_do_while_levels=None if levels is None else [tuple(level) for level in levels],
            checkpoint_yield_on_args=list(data.get("checkpoint_yield_on_args", [])),
            checkpoint_yield_on_cpp_arg_ids=[int(v) for v in data.get("checkpoint_yield_on_cpp_arg_ids", [])],
            checkpoint_user_labels_by_cp_id=[None if v is None else int(v)
                                             for v in data.get("checkpoint_user_labels_by_cp_id", [])],
            checkpoint_user_label_enum_qualnames=list(data.get("checkpoint_user_label_enum_qualnames", [])),
        )


class PythonSideCache:
    """The record files in python_side_cache/ of the cache folder in use (made on construction, which is cheap)."""

    def __init__(self):
        self.cache_folder = os.path.join(_core.cache_dir_in_use(), FOLDER)
        os.makedirs(self.cache_folder, exist_ok=True)

    def _get_filepath(self, key):
        return os.path.join(self.cache_folder, f"{key}.cache.txt")

    def store(self, key, value):
        """Writes `value` (text) as the record of `key`, atomically."""
        fd, temporary = tempfile.mkstemp(dir=self.cache_folder, prefix=f"{key}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(value)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self._get_filepath(key))

    def try_load(self, key):
        """The record's text, or None when there is none or it is not UTF-8 text (a warning then)."""
        path = self._get_filepath(key)
        if not os.path.isfile(path):
            return None
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            warnings.warn(f"Failed to read the fast-cache record {path}: {exc}", stacklevel=3)
            return None
        os.utime(path, None)  # read recently: what an LRU cleaner keeps
        return text


def intenum_member_qualname(value):
    """'module.ClassQualName.MEMBER' of an IntEnum member, None for anything else (plain ints, None)."""
    if not isinstance(value, enum.IntEnum):
        return None
    cls = type(value)
    module, qualname, name = getattr(cls, "__module__", None), getattr(cls, "__qualname__", None), value.name
    if not module or not qualname or not name or "<locals>" in qualname:
        return None
    return f"{module}.{qualname}.{name}"


def resolve_intenum_member(qualname, fallback):
    """The IntEnum member `qualname` names when it still exists with the value `fallback`, else `fallback`."""
    if qualname is None or fallback is None:
        return fallback
    owner_path, _, member = qualname.rpartition(".")
    if not owner_path or not member:
        return fallback
    segments = owner_path.split(".")
    for cut in range(len(segments), 0, -1):  # the longest importable prefix is the module, the rest attributes
        try:
            obj = importlib.import_module(".".join(segments[:cut]))
        except ImportError:
            continue
        try:
            for name in segments[cut:] + [member]:
                obj = getattr(obj, name)
        except AttributeError:
            return fallback
        if isinstance(obj, enum.IntEnum) and int(obj) == int(fallback):
            return obj
        return fallback
    return fallback


# ---- function sources ---------------------------------------------------------------------------------------
def read_function_lines(info):
    """The lines a function's digest covers, with their newlines: as upstream reads them, lines start_lineno to
    end_lineno of the file counted from 0 (so one line past a 1-based range: both ends shift alike, and a record
    only ever compares digests made this one way)."""
    try:
        with open(info.filepath, encoding="utf-8") as f:
            return list(islice(f, info.start_lineno, info.end_lineno + 1))
    except (OSError, UnicodeDecodeError) as exc:
        raise OSError(f"Cannot read {info.filepath} lines {info.start_lineno}-{info.end_lineno} for "
                      f"{info.function_name}: {exc}") from exc


def hash_function(info):
    return hash_iterable_strings(read_function_lines(info))


def hash_functions(infos):
    """[HashedFunctionSourceInfo] of each function's lines now."""
    return [HashedFunctionSourceInfo(function_source_info=info, hash=hash_function(info)) for info in infos]


def validate_hashed_function_infos(hashed_infos):
    """Whether every function's lines still have the digest recorded (False when a file is gone)."""
    for hashed in hashed_infos:
        info = hashed.function_source_info
        if not os.path.isfile(info.filepath) or hash_function(info) != hashed.hash:
            return False
    return True


# ---- records ------------------------------------------------------------------------------------------------
def store(frontend_cache_key, fast_cache_key, function_source_infos, used_py_dataclass_parameters,
          graph_do_while_levels=None, checkpoint_yield_on_args=None, checkpoint_yield_on_cpp_arg_ids=None,
          checkpoint_user_labels_by_cp_id=None):
    """Writes the record of `fast_cache_key` (nothing without one): the compiled kernel's key, the digests of the
    functions now, and the translation's metadata. IntEnum labels keep their qualified names beside their ints."""
    if not fast_cache_key:
        return
    if frontend_cache_key is None:
        raise ValueError("store(): frontend_cache_key is None; a record must name the compiled kernel it stands for.")
    labels = list(checkpoint_user_labels_by_cp_id or [])
    value = CacheValue(
        frontend_cache_key=frontend_cache_key,
        hashed_function_source_infos=hash_functions(function_source_infos),
        used_py_dataclass_parameters=set(used_py_dataclass_parameters),
        graph_do_while_levels=None if graph_do_while_levels is None else [tuple(v) for v in graph_do_while_levels],
        checkpoint_yield_on_args=list(checkpoint_yield_on_args or []),
        checkpoint_yield_on_cpp_arg_ids=list(checkpoint_yield_on_cpp_arg_ids or []),
        checkpoint_user_labels_by_cp_id=labels,
        checkpoint_user_label_enum_qualnames=[intenum_member_qualname(label) for label in labels],
    )
    PythonSideCache().store(fast_cache_key, value.to_json())


def load(fast_cache_key):
    """The record of `fast_cache_key` while its functions' sources are unchanged, else None."""
    text = PythonSideCache().try_load(fast_cache_key)
    if text is None:
        return None
    try:
        value = CacheValue.from_json(text)
    except (ValueError, TypeError, KeyError) as exc:
        warnings.warn(f"Failed to parse the fast-cache record of {fast_cache_key}: {exc}", stacklevel=2)
        return None
    return value if validate_hashed_function_infos(value.hashed_function_source_infos) else None


__all__ = ["CacheValue", "FunctionSourceInfo", "HashedFunctionSourceInfo", "PythonSideCache",
           "hash_function", "hash_functions", "intenum_member_qualname", "load", "read_function_lines",
           "resolve_intenum_member", "store", "validate_hashed_function_infos"]
