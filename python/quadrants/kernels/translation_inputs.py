# python/quadrants/kernels/translation_inputs.py: identity-free descriptions of the Python values a translation read,
# and the paths that find those values again in another process (for translation_cache.py).
#
# A description is a string standing for a value as the frontend sees it; equal descriptions in two processes mean
# the translator gets the same thing from either. Values are of two kinds:
# - closed: described completely: None, numbers, strings, tuples/lists/dicts of closed values, enum members, numpy
#   values, quadrants dtypes and type annotations (by their attributes), compile-time qd.Matrix values, fields and
#   ndarrays (dtype, shape, element shape, memory order, SNode path with kinds, axes, extents and chunk sizes,
#   offsets, storage contiguity), and quadrants' own functions and classes (the package fingerprint covers them).
#   Any Python operation on closed values gives the same result in both processes.
# - open: modules, user classes and their instances, user functions, @qd.func objects: described by what they are
#   (module and qualified name; a function by its source text, defaults and annotations), and every attribute the
#   translation reads from one is a read of its own. translation_recorder.py refuses a translation that does
#   anything else with an open value (calls a user function, indexes, iterates or compares a user object).
# What a description leaves out is listed in translation_cache.py's header.
import builtins
import dataclasses
import enum
import hashlib
import operator
import sys
import types
import typing
import weakref

import numpy as np

from quadrants.base.dtypes import DataType
from quadrants.data.field import Field, NoStorage
from quadrants.data.field_components import all_members
from quadrants.data.matrix import Matrix
from quadrants.data.ndarray import Ndarray
from quadrants.data.struct_field import StructField
from quadrants.data.tensor import Tensor, unwrap
from quadrants.frontend.builtins import Builtin
from quadrants.frontend.funcs import BoundFunc, Func
from quadrants.frontend.random_numbers import random_state
from quadrants.frontend.source import first_position
from quadrants.frontend.tensor_params import ARRAY


_GENERIC_ALIASES = (types.GenericAlias, types.UnionType, type(typing.List[int]), type(typing.Union[int, str]))


class Undescribable(Exception):
    """A value the cache cannot describe; the translation that read it is not cached."""


MISSING = object()  # what a path finds where nothing is (a global that was deleted, an attribute gone)
_UNSET = object()
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_MAX_DEPTH = 24
_OWN_MODULES = ("quadrants", "numpy", "builtins", "math", "operator", "enum", "typing", "dataclasses", "collections",
                "functools", "itertools", "abc", "_operator", "types")


_own_modules = {}  # module name -> own_module's answer: Genesis' lookups ask it tens of thousands of times


def own_module(module):
    """Whether a module name is quadrants' or a library whose objects keep their meaning across processes."""
    if not isinstance(module, str):
        return False
    found = _own_modules.get(module)
    if found is None:
        found = _own_modules[module] = module.split(".", 1)[0] in _OWN_MODULES
    return found


def python_function(value):
    """The plain Python function behind a function-like value (a func, a bound func or method), else None."""
    if isinstance(value, BoundFunc):
        value = value.func
    if isinstance(value, Func):
        value = value.fn
    if isinstance(value, types.MethodType):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


# ---- function sources ----------------------------------------------------------------------------------------
_fingerprints = {}  # code object -> (filename, first line, last line, sha1 of those lines)
_file_lines = {}  # filename -> its lines as bytes without their newlines, read once per process


def file_lines(filename):
    """A source file's lines (bytes, universal newlines, no line ends) as this process first read them; [] when it
    cannot be read."""
    found = _file_lines.get(filename)
    if found is None:
        found = _file_lines[filename] = read_lines(filename)
    return found


def read_lines(filename):
    """A source file's lines as it holds them now (file_lines without the per-process memo)."""
    try:
        with open(filename, "rb") as source:
            data = source.read()
    except OSError:
        data = b""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.split(b"\n") if data else []


def lines_digest(lines, first, last):
    """The digest a source fingerprint holds: of file lines first..last (1-based, inclusive)."""
    return hashlib.sha1(b"\n".join(lines[first - 1:last])).hexdigest()


def mentions(fn, words):
    """Whether the source lines of a function contain any of `words` (bytes); True when they cannot be read."""
    code = fn.__code__
    lines = file_lines(code.co_filename)
    if not lines:
        return True
    text = b"\n".join(lines[code.co_firstlineno - 1:last_line(code, lines)])
    return any(word in text for word in words)


def own_text(fn):
    """A function's own source lines (decorators on), joined; None when they cannot be read."""
    code = fn.__code__
    lines = file_lines(code.co_filename)
    if not lines or not 0 < code.co_firstlineno <= len(lines):
        return None
    return b"\n".join(lines[code.co_firstlineno - 1:last_line(code, lines)])


def same_text(lines, first, texts):
    """Whether the file lines from `first` on read as `texts` (lines with their newlines, as the frontend parsed
    them): a file changed on disk after the frontend read it, or not UTF-8, would make a fingerprint lie."""
    try:
        return all(lines[first - 1 + k].decode("utf-8") + "\n" == text for k, text in enumerate(texts))
    except (IndexError, UnicodeDecodeError):
        return False


def last_line(code, lines):
    """The last line of a function's source: past its last line with code (bytecode positions, which end a
    statement spread over lines where its last token ends), on through the lines indented deeper than its first
    line. The second part covers what compiles to no bytecode yet is translated: asserts under `python -O`, the
    tail of a dead branch, comments. Trailing blank lines are left out."""
    last = min(_last_code_line(code), len(lines))
    base = _indent(lines[code.co_firstlineno - 1]) if 0 < code.co_firstlineno <= len(lines) else 0
    end = last
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > base):
        end += 1
    while end > last and not lines[end - 1].strip():
        end -= 1
    return end


def _indent(line):
    return len(line) - len(line.lstrip(b" \t"))


def _last_code_line(code):
    last = code.co_firstlineno
    for start, end, _, _ in code.co_positions():
        for line in (start, end):
            if line is not None and line > last:
                last = line
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_code_line(const))
    return last


def source_fingerprint(fn):
    """(file, first line, last line, digest of those lines) of a Python function's source, as its file holds it now.

    The lines run from the first decorator to the function's last line (last_line), so a statement added at the end
    moves it. The frontend parses the same file (frontend/source.py), so equal fingerprints mean the same
    AST. Memoized per code object: a process sees a file as it was when it first read it."""
    code = fn.__code__
    found = _fingerprints.get(code)
    if found is None:
        lines = file_lines(code.co_filename)
        if not lines:
            raise Undescribable(f"no source file for {fn.__qualname__}")
        first, last = code.co_firstlineno, last_line(code, lines)
        found = _fingerprints[code] = (code.co_filename, first, last, lines_digest(lines, first, last))
    return found


def source_lines(fn):
    """(file, first line, last line, those lines with their newlines): the lines source_fingerprint digests, as this
    process read the file. OSError when the function has no readable source file."""
    code = fn.__code__
    lines = file_lines(code.co_filename)
    if not lines or code.co_firstlineno > len(lines):
        raise OSError(f"Cannot find the source of {fn.__qualname__}: {code.co_filename} cannot be read.")
    first, last = code.co_firstlineno, last_line(code, lines)
    return code.co_filename, first, last, [line.decode("utf-8") + "\n" for line in lines[first - 1:last]]


# ---- descriptions --------------------------------------------------------------------------------------------
def describe(value, on_open=None, steps=()):
    """The description (a string) of a value; on_open(obj, steps) is called for every open object and container
    met inside it, with the steps from `value` to it. Raises Undescribable."""
    text = repr(_describe(value, on_open, steps, 0))
    return text if len(text) <= 240 else "#" + hashlib.sha1(text.encode()).hexdigest()


def _class_identity(cls):
    return (cls.__module__, cls.__qualname__)


_class_flags_of = weakref.WeakKeyDictionary()  # class -> _class_flags: a class's markers and fields are fixed once made


def _class_flags(cls):
    """What the frontend reads from a class itself besides its attributes: being a dataclass (with its members'
    annotations, which make a parameter's schema) and data_oriented's markers. Computed once per class: Genesis'
    dataclasses have dozens of annotated members and are described for every kernel that takes them."""
    try:
        return _class_flags_of[cls]
    except (KeyError, TypeError):
        pass
    flags = [getattr(cls, "_data_oriented", None), getattr(cls, "_qd_template_primitives", None)]
    if dataclasses.is_dataclass(cls):
        flags.append(tuple((f.name, _annotation(f.type)) for f in dataclasses.fields(cls)))
    found = tuple(repr(f) if not isinstance(f, tuple) else f for f in flags)
    try:
        _class_flags_of[cls] = found
    except TypeError:  # a class that takes no weak reference: described each time
        pass
    return found


def _annotation(annotation):
    try:
        return _describe(annotation, None, (), 0)
    except Undescribable:
        return ("?", repr(annotation))
    except RecursionError:
        return ("?", repr(annotation))


def _describe(value, on_open, steps, depth):
    if depth > _MAX_DEPTH:
        raise Undescribable("nested too deeply")
    t = type(value)
    if t in _SCALARS:
        return (t.__name__, value)
    if t is tuple or t is list:
        return (t.__name__, tuple(_describe(v, on_open, steps + (("i", k),), depth + 1) for k, v in enumerate(value)))
    if t is dict:
        items = []
        for k, v in value.items():
            if type(k) not in (str, int):
                raise Undescribable("a dict with keys other than str and int")
            items.append((k, _describe(v, on_open, steps + (("i", k),), depth + 1)))
        return ("dict", tuple(items))
    if t in (set, frozenset):
        return (t.__name__, tuple(sorted(repr(_describe(v, None, (), depth + 1)) for v in value)))
    if t in (range, slice):
        return (t.__name__, repr(value))
    if value is ARRAY:
        return ("ARRAY",)
    if isinstance(value, DataType):
        return ("dtype", value.name)
    if isinstance(value, enum.Enum):
        return ("enum", _class_identity(t), value.name, _describe(value.value, None, (), depth + 1))
    if isinstance(value, (np.generic, np.ndarray)):
        return _numpy(value)
    if isinstance(value, _GENERIC_ALIASES):  # tuple[vec3, vec4], X | Y: annotations, by origin and arguments
        return ("generic", _describe(typing.get_origin(value), None, (), depth + 1),
                _describe(typing.get_args(value), None, (), depth + 1))
    if isinstance(value, np.dtype):
        return ("npdtype", value.str)
    if isinstance(value, Tensor):
        inner = unwrap(value)
        return ("tensor", t.__name__, _describe(inner, on_open, steps + (("u",),), depth + 1))
    if isinstance(value, (Field, Ndarray, StructField)):
        if on_open is not None:
            on_open(value, steps)
        return container_description(value)
    if isinstance(value, Matrix):
        return ("matrix", _numpy(value.to_numpy()))
    if isinstance(value, types.ModuleType):
        if on_open is not None:
            on_open(value, steps)
        return ("module", value.__name__)
    if isinstance(value, type):
        if own_module(value.__module__):
            return ("class", _class_identity(value))
        if on_open is not None:
            on_open(value, steps)
        return ("userclass", _class_identity(value), _class_flags(value))
    if isinstance(value, (Func, BoundFunc, types.FunctionType, types.MethodType)):
        return _function(value, on_open, steps, depth)
    if isinstance(value, Builtin):
        return ("qd.builtin", value.name)
    if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(value, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return ("builtin", getattr(value, "__module__", None), value.__qualname__)
        return ("method", value.__name__, _describe(owner, on_open, steps + (("a", "__self__"),), depth + 1))
    if own_module(t.__module__):
        return _own_object(value, on_open, steps, depth)
    if on_open is not None:
        on_open(value, steps)
    return ("object", _class_identity(t), _class_flags(t))


def _numpy(value):
    if isinstance(value, np.generic):
        return ("np", value.dtype.str, repr(value.item()))
    if value.dtype.kind not in "biufcU":
        raise Undescribable(f"a numpy array of dtype {value.dtype}")
    data = np.ascontiguousarray(value)
    return ("nparray", value.dtype.str, value.shape, hashlib.sha1(data.tobytes()).hexdigest())


def _function(value, on_open, steps, depth):
    fn = python_function(value)
    if isinstance(value, BoundFunc):  # a @qd.func method read from an instance: both parts
        return ("boundfunc", _describe(value.func, on_open, steps + (("a", "func"),), depth + 1),
                _instance(value.instance, on_open, steps + (("a", "instance"),), depth + 1))
    if isinstance(value, types.MethodType):
        return ("boundmethod", _describe(value.__func__, on_open, steps + (("a", "__func__"),), depth + 1),
                _instance(value.__self__, on_open, steps + (("a", "__self__"),), depth + 1))
    if own_module(fn.__module__) and "<locals>" not in fn.__qualname__:
        return ("qd.function", fn.__module__, fn.__qualname__, type(value).__name__)
    if on_open is not None:
        on_open(value, steps)
    parts = [type(value).__name__, fn.__module__, fn.__qualname__, source_fingerprint(fn),
             _describe(fn.__defaults__, None, (), depth + 1), _describe(fn.__kwdefaults__, None, (), depth + 1)]
    if fn.__name__ == "<lambda>":  # lambdas sharing a line share its fingerprint: where its code starts tells them
        parts.append(first_position(fn.__code__))
    if isinstance(value, Func):
        parts += [value.is_real, value.requires_top_level, bool(getattr(value, "plain_python", False)),
                  _describe(value.annotations, None, (), depth + 1)]
    return ("function", tuple(parts))


def _instance(value, on_open, steps, depth):
    if hasattr(value, "path") and hasattr(value, "schema") and hasattr(value, "obj"):  # a CompoundRef
        raise Undescribable("a func bound to a kernel argument")
    return _describe(value, on_open, steps, depth)


def _own_object(value, on_open, steps, depth):
    """quadrants' and libraries' value objects (type annotations, struct types): their class and attributes."""
    state = getattr(value, "__dict__", None)
    if type(state) is not dict:
        slots = [s for c in type(value).__mro__ for s in getattr(c, "__slots__", ())]
        state = {s: getattr(value, s) for s in slots if hasattr(value, s)}
        if not state and type(value).__module__.split(".", 1)[0] != "quadrants":
            raise Undescribable(f"a {type(value).__qualname__}")
    items = tuple((k, _describe(v, None, (), depth + 1)) for k, v in sorted(state.items()) if k != "__wrapped__")
    return ("qd.object", _class_identity(type(value)), items)


def container_description(container):
    """A field or ndarray by what a kernel bakes in: dtype, shapes, memory order and, for a field, its SNode path."""
    if isinstance(container, StructField):
        return ("structfield", tuple(container.field_dict), container.shape and tuple(container.shape))
    if getattr(container, "_composed", False):  # components placed one by one: no array of its own
        return ("composed", type(container).__name__, container.dtype.name, tuple(container._element_shape),
                tuple(container_description(member) for member in all_members(container)))
    array = container._array
    if isinstance(array, NoStorage):  # not placed or not finalized: the frontend names why, nothing is cached
        raise Undescribable(f"{container._describe()} without storage")
    parts = [type(container).__name__, container.dtype.name, container.shape and tuple(container.shape),
             tuple(container._element_shape), getattr(container, "_qd_layout", None) and
             repr(getattr(container, "_qd_layout", None)), bool(getattr(container, "_soa", False)),
             bool(getattr(array, "is_contiguous", True)), type(array).__name__,
             bool(getattr(container, "_composed", False))]
    if isinstance(container, Field):
        node = container._place_node
        path = node._path()[::-1] if node is not None else []
        parts.append(tuple((n._kind, n._axes, n._extents, n.chunk_size, n._pooled) for n in path))
        layout = container._layout
        parts.append(layout.offset if layout is not None else None)
        parts.append(tuple(getattr(container, "_element_index", ()) or ()))
        parts.append((container.has_grad(), container.has_dual()))  # placed ones: a float field has both anyway
        if container._quant is not None:  # where its bits are in its word field (data/bitpacked.py)
            parts.append(container._quant.describe())
    return ("container", tuple(repr(p) for p in parts))


# ---- which operations are safe on which values ------------------------------------------------------------------
_PURE_BUILTINS = frozenset(getattr(builtins, name) for name in (
    "abs", "all", "any", "bin", "bool", "chr", "divmod", "enumerate", "float", "format", "frozenset", "hex", "int",
    "isinstance", "issubclass", "len", "list", "max", "min", "oct", "ord", "pow", "range", "repr", "reversed", "round",
    "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "dict", "callable", "complex"))
_TYPE_ONLY = frozenset((builtins.isinstance, builtins.issubclass, builtins.type, builtins.callable))
_PURE_MODULES = frozenset(("math", "operator", "_operator", "numpy", "cmath"))


def is_open(value, depth=0):
    """Whether a value is open (see the header): Python operations on it may run user code or depend on its state."""
    t = type(value)
    if t in _SCALARS or value is ARRAY or t in (range, slice):
        return False
    if t in (tuple, list, set, frozenset):
        return depth < _MAX_DEPTH and any(is_open(v, depth + 1) for v in value)
    if t is dict:
        return depth < _MAX_DEPTH and any(is_open(v, depth + 1) for v in value.values())
    if isinstance(value, (DataType, enum.Enum, np.generic, np.ndarray, np.dtype, Builtin, Matrix)):
        return False
    if isinstance(value, type):
        return not own_module(value.__module__)
    if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(value, "__self__", None)
        return not (owner is None or isinstance(owner, types.ModuleType)) and is_open(owner, depth + 1)
    fn = python_function(value)
    if fn is not None:
        return not (own_module(fn.__module__) and not isinstance(value, (BoundFunc, types.MethodType)))
    return not own_module(t.__module__) or isinstance(value, types.ModuleType)


def pure_call(func, args, kwargs):
    """Whether calling func(*args, **kwargs) at compile time depends on nothing but the values' descriptions."""
    values = list(args) + list(kwargs.values())
    if func in _TYPE_ONLY:  # isinstance(x, C) and friends read only the types, which descriptions hold
        return not any(isinstance(v, types.ModuleType) for v in values)
    if any(is_open(v) for v in values):
        return False
    if func in _PURE_BUILTINS:
        return True
    if isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(func, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return getattr(func, "__module__", None) in _PURE_MODULES or (
                owner is not None and owner.__name__ in _PURE_MODULES)
        return not is_open(owner)
    if isinstance(func, type):
        return own_module(func.__module__)
    if isinstance(func, (np.ufunc,)):
        return True
    fn = python_function(func)
    if fn is None or not own_module(fn.__module__) or isinstance(func, (BoundFunc, types.MethodType)):
        return False
    # quadrants' runtime functions read process state, except get_runtime(), whose attributes kernels read
    # (default_fp, ...) are qd.init options, which are in the key.
    return fn.__name__ == "get_runtime" or not fn.__module__.startswith(("quadrants.lang", "quadrants.runtime"))


def pure_operation(fn, operands):
    """Whether a Python operator or iteration on these operands depends only on their descriptions."""
    if fn in (operator.is_, operator.is_not):  # identities: the identity classes of the values (recorder) hold them
        return True
    return not any(is_open(v) for v in operands)


# ---- paths --------------------------------------------------------------------------------------------------
def walk(path, roots, cache):
    """The value a path finds now, or MISSING. roots: {'K': kernel function, 'S': slot values, 'V': the call's
    dataclass arguments}; cache: {path prefix: value} shared by the walks of one validation."""
    found = cache.get(path, _UNSET)
    if found is not _UNSET:
        return found
    if len(path) == 1:
        value = _root(path[0], roots)
    else:
        base = walk(path[:-1], roots, cache)
        value = MISSING if base is MISSING else _step(base, path[-1])
    cache[path] = value
    return value


def _root(step, roots):
    kind = step[0]
    if kind == "G":
        module = sys.modules.get(step[1])
        return MISSING if module is None else module.__dict__.get(step[2], MISSING)
    if kind == "B":
        return builtins.__dict__.get(step[1], MISSING)
    if kind == "K":
        return roots["K"]
    if kind == "S":
        return roots["S"].get(tuple(step[1:]), MISSING)
    if kind == "V":
        values = roots.get("V")
        return MISSING if not values or step[1] not in values else values[step[1]]
    if kind == "R":
        return random_state()
    if kind == "Q":
        value = sys.modules.get(step[1], MISSING)
        for name in step[2].split("."):
            value = MISSING if value is MISSING else getattr(value, name, MISSING)
        return value
    return MISSING


def _step(value, step):
    kind = step[0]
    if kind == "a":
        try:
            return getattr(value, step[1])
        except Exception:  # noqa: BLE001 - a property that raises now: the read differs
            return MISSING
    if kind == "i":
        if type(value) not in (tuple, list, dict):  # never a user __getitem__
            return MISSING
        try:
            return value[step[1]]
        except (IndexError, KeyError, TypeError):
            return MISSING
    if kind == "c":
        fn = python_function(value)
        if fn is None:
            return MISSING
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name == step[1]:
                try:
                    return cell.cell_contents
                except ValueError:
                    return MISSING
        return MISSING
    if kind == "u":
        return unwrap(value)
    if kind == "k":
        return kind_of(value)
    if kind == "m":
        try:
            return all_members(value)[step[1]]
        except Exception:  # noqa: BLE001 - not a composed field any more
            return MISSING
    return MISSING


def kind_of(value):
    """What a leaf member is recorded as: only its class (its specialization is checked on every call)."""
    return f"{type(value).__module__}.{type(value).__qualname__}"


def read_description(value):
    """The description a read of `value` is recorded and checked with ('absent' where nothing is)."""
    return "absent" if value is MISSING else describe(value)


def freeze(item):
    """JSON's lists back into the tuples paths and steps are made of."""
    return tuple(freeze(x) for x in item) if isinstance(item, list) else item

