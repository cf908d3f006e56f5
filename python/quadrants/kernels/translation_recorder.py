# python/quadrants/kernels/translation_recorder.py: records what one translation read, for translation_cache.py.
#
# The translator reports each Python value it takes in (frontend/read_hooks.py). The recorder gives every value a
# path from a root another process has too (translation_inputs.walk) and keeps (path, description) for it; open
# objects and containers remember the path they were first found at, so reads through them (attributes, closure
# cells, members) get paths of their own, and the objects' identities (which path finds the same object as which)
# are kept, since the translator shares one global per container and compares objects by identity.
# Anything the cache could not check again refuses the translation (self.refused): it is then simply not cached.
import sys

from quadrants.data.field import Field
from quadrants.data.field_components import all_members
from quadrants.data.snode import SNode
from quadrants.data.struct_field import StructField
from quadrants.frontend.read_hooks import ReadHooks
from quadrants.kernels.translation_inputs import (
    Undescribable,
    own_module,
    describe,
    file_lines,
    is_open,
    kind_of,
    same_text,
    pure_call,
    pure_operation,
    python_function,
    walk,
)
from quadrants.runtime import init as _runtime

# Where a container may hide behind the objects the kernel named: SNode links, hidden activity arrays, twins.
_DERIVED_ATTRIBUTES = ("_place_node", "_parent", "_field", "_mask", "_slots", "_next", "_lengths", "grad", "dual")
_MAX_DERIVATION = 8


def own_function(fn):
    """quadrants' own module-level functions: the package fingerprint covers what their bodies read by name."""
    return own_module(fn.__module__) and "<locals>" not in fn.__qualname__


def global_path(fn, name):
    """The path of global `name` of a Python function: its module's dict when that is where the function lives."""
    module_name = fn.__globals__.get("__name__")
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    if module is None or module.__dict__ is not fn.__globals__:
        return None
    return (("G", module_name, name),)


class TranslationRecorder(ReadHooks):
    """The reads of one translation: reads {path: description}, identities {path: class}, containers [path]."""

    def __init__(self, kernel_fn, slot_values):
        self.reads = {}
        self.identities = {}
        self.containers = []
        self.refused = None
        self._paths = {}  # id(object) -> the path it was first found at
        self._kept = []  # those objects, alive while recording, so no id is reused
        self._classes = 0
        self._slot_paths = set(slot_values)
        self._register(kernel_fn, (("K",),))
        for path, value in slot_values.items():  # their descriptions are part of the cache key
            self._describe_quietly(value, (("S",) + tuple(path),))

    # ---- bookkeeping ------------------------------------------------------------------------------------
    def refuse(self, reason):
        if self.refused is None:
            self.refused = reason

    def _register(self, obj, path):
        known = self._paths.get(id(obj))
        if known is not None:
            if known != path and path not in self.identities:
                self.identities[path] = self.identities[known]
            return
        self._paths[id(obj)] = path
        self._kept.append(obj)
        self.identities[path] = self._classes
        self._classes += 1
        fn = python_function(obj)
        if fn is not None and fn is not obj and id(fn) not in self._paths:  # closure steps look through funcs
            self._paths[id(fn)] = path
            self._kept.append(fn)

    def _describe_quietly(self, value, path):
        try:
            return describe(value, lambda obj, steps: self._register(obj, path + steps))
        except Undescribable as exc:
            self.refuse(f"{exc}, read at {_show(path)}")
        except RecursionError:
            self.refuse("a value nested too deeply")
        return None

    def _read(self, path, value):
        if self.refused is not None or path in self.reads:
            return
        description = self._describe_quietly(value, path)
        if description is not None:
            self.reads[path] = description

    def _absent(self, path):
        if path is not None and path not in self.reads:
            self.reads[path] = "absent"

    def path_of(self, obj):
        return self._paths.get(id(obj))

    # ---- the hooks --------------------------------------------------------------------------------------
    def name(self, fn, where, name, value):
        if own_function(fn):
            return
        if where == "closure":
            base = self.path_of(fn)
            if base is None:
                self.refuse(f"the closure of {fn.__qualname__}, reached by an untracked route")
                return
            self._read(base + (("c", name),), value)
            return
        path = global_path(fn, name)
        if path is None:
            self.refuse(f"the globals of {fn.__qualname__} are not its module's")
            return
        if where == "global":
            self._read(path, value)
        else:  # a builtin, as long as the module defines no global of that name
            self._absent(path)
            self._read((("B", name),), value)

    def attribute(self, base, attr, value):
        path = self.path_of(base)
        if path is not None:
            self._read(path + (("a", attr),), value)
        elif is_open(base):
            self.refuse(f"an attribute of a {type(base).__qualname__} reached by an untracked route")

    def member(self, path, value, leaf):
        if tuple(path) in self._slot_paths:
            return  # a template member: its description is part of the key
        root = self._member_root(path)
        if leaf:  # a runtime parameter: its specialization is checked per call, so only its kind is recorded here
            self._read(root + (("k",),), kind_of(value))
            return
        self._read(root, value)

    def _member_root(self, path):
        for cut in range(len(path) - 1, 0, -1):
            if path[:cut] in self._slot_paths:
                return (("S",) + tuple(path[:cut]),) + tuple(("a", n) for n in path[cut:])
        return (("V", path[0]),) + tuple(("a", n) for n in path[1:])

    def class_attribute(self, cls, attr, value):
        if "<locals>" in cls.__qualname__:
            self.refuse(f"an attribute of class {cls.__qualname__}, defined inside a function")
            return
        root = ("Q", cls.__module__, cls.__qualname__)
        if walk((root,), {}, {}) is not cls:
            self.refuse(f"class {cls.__qualname__} is not found by its name")
            return
        self._read((root, ("a", attr)), value)

    def operation(self, fn, operands):
        if not pure_operation(fn, operands):
            self.refuse(f"a compile-time {getattr(fn, '__name__', fn)} on a user object")

    def call(self, func, args, kwargs):
        if not pure_call(func, args, kwargs):
            self.refuse(f"a compile-time call of {getattr(func, '__qualname__', type(func).__qualname__)}")

    def container(self, container):
        path = self.path_of(container)
        if path is None:
            path = self._derived_path(container)
            if path is None:
                self.refuse(f"a global array reached by an untracked route ({type(container).__qualname__})")
                return
            self._read(path, container)
        self.containers.append(path)

    def function(self, source):
        fn = source.fn
        if own_function(fn):
            return
        first = min(source.file_lines)
        if not same_text(file_lines(source.filename), first, [source.file_lines[k] for k in sorted(source.file_lines)]):
            self.refuse(f"the source of {fn.__qualname__} is not the UTF-8 text of its file as it was parsed")
            return
        if self.path_of(fn) is not None:
            return  # described where it was found: source, defaults and annotations
        if "<locals>" not in fn.__qualname__:
            root = (("Q", fn.__module__, fn.__qualname__),)
            if python_function(walk(root, {}, {})) is fn:
                self._read(root, walk(root, {}, {}))
                return
        self.refuse(f"function {fn.__qualname__} reached by an untracked route")

    def uncacheable(self, reason):
        self.refuse(reason)

    # ---- containers the kernel did not name -------------------------------------------------------------
    def _derived_path(self, container):
        """The path of a hidden array (activity masks, pool slots, component and struct members, twins, the random
        state): searched from the fields and SNodes found so far through the links the frontend follows."""
        state = getattr(_runtime.config(), "_random_state", None)
        if container is state:
            return (("R",),)
        frontier = [(obj, self._paths[id(obj)]) for obj in self._kept if _has_links(obj)]
        seen = {id(obj) for obj, _ in frontier}
        for _ in range(_MAX_DERIVATION):
            following = []
            for obj, path in frontier:
                for steps, child in _links(obj):
                    if child is container:
                        return path + steps
                    if id(child) not in seen and _has_links(child):
                        seen.add(id(child))
                        following.append((child, path + steps))
            frontier = following
        return None


def _show(path):
    """A path as the reader of a refusal reason would write it: `module.name.attr`."""
    words = []
    for step in path:
        if step[0] == "G":
            words.append(f"{step[1]}.{step[2]}")
        elif step[0] in ("a", "c", "B"):
            words.append(str(step[1]))
        elif step[0] == "i":
            words[-1:] = [f"{words[-1] if words else ''}[{step[1]!r}]"]
        elif step[0] == "S":
            words.append(".".join(step[1:]))
        else:
            words.append(step[0])
    return ".".join(words)


def _has_links(obj):
    return isinstance(obj, (Field, StructField, SNode))


def _links(obj):
    """(steps, linked object) for what the frontend may follow from a field, struct field or SNode."""
    state = getattr(obj, "__dict__", {})
    for attr in _DERIVED_ATTRIBUTES:
        child = state.get(attr)
        if child is not None:
            yield (("a", attr),), child
    if isinstance(obj, StructField):
        for key, member in obj.field_dict.items():
            yield (("a", "field_dict"), ("i", key)), member
    if getattr(obj, "_composed", False):
        for k, member in enumerate(all_members(obj)):
            yield (("m", k),), member
    quant = state.get("_quant")  # a quantized field's word field (data/bitpacked.py), a global of the kernel
    if quant is not None:
        yield (("a", "_quant"), ("a", "word")), quant.word
