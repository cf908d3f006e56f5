# python/quadrants/kernels/dispatch.py: the generated per-call Python of kernels that dispatch in Python.
#
# Kernels with template or dataclass parameters (a data_oriented method's `self` is a template) pick
# a launcher per call in Python. That runs on every launch, and Genesis launches thousands of small
# kernels per simulation step, so the call is generated source with the kernel's own signature rather
# than a generic *args wrapper: Python binds keywords and defaults itself, a method binds `self` in C
# as for any function, template keys are computed inline, and each entry reads the leaves of its
# dataclass and data_oriented arguments with plain attribute loads.
import functools
import keyword
import numbers
import operator
import weakref

from quadrants.data.tensor import _WRAPPERS as _WRAPPER_TYPES
from quadrants.frontend.compound_params import PlanChanged
from quadrants.frontend.tensor_params import _ARRAY_TYPES, ARRAY, slot_value

_PLAIN = frozenset({int, float, bool, str, complex, type(None), type(ARRAY)})
_BY_ID = set()  # types whose template values are keyed by id(), so later calls skip _slow_key
_WRAPPERS = frozenset(_WRAPPER_TYPES)


def template_key(value):
    """Template values are told apart by value (numbers, strings, tuples of them) and otherwise by identity."""
    t = type(value)
    if t in _PLAIN:
        return (t, value)
    return _slow_key(value)


_ARRAY_KEY = template_key(ARRAY)  # every array slot's key: arrays are launch arguments, never baked in


def _slow_key(value):
    if isinstance(value, tuple):
        return (tuple, tuple(template_key(v) for v in value))
    if isinstance(value, numbers.Number):
        return (type(value), value)
    _BY_ID.add(type(value))
    return id(value)


def identified_objects(value, out):
    """The objects that template_key(value) names by id(), which must outlive the key's entry."""
    t = type(value)
    if t in _PLAIN:
        return out
    if isinstance(value, tuple):
        for v in value:
            identified_objects(v, out)
    elif not isinstance(value, numbers.Number):
        out.append(value)
    return out


def _access(base, path):
    """Python source reading the attributes `path` from the expression `base`."""
    text = base
    for name in path:
        text = f"{text}.{name}" if name.isidentifier() and not keyword.iskeyword(name) else f"getattr({text}, {name!r})"
    return text


def tensor_key(value):
    """The template key of a qd.Tensor slot: one key for every array, the template key of anything else."""
    return template_key(slot_value(value))


def _slot_key(base, path, kind):
    """template_key() (tensor_key() for kind 'tensor') of one slot, inlined: a call costs more than the key."""
    value = _access(base, path)
    if kind == "tensor":  # arrays, bare or in a qd.Tensor wrapper, all have one key
        return (f"(_qd_ARRAY_KEY if (_qd_t := type(_qd_v := {value})) in _qd_ARRAYS or (_qd_t in _qd_WRAPPERS "
                f"and type(_qd_v._impl) in _qd_ARRAYS) else _qd_tensor_key(_qd_v))")
    return (f"((_qd_t, _qd_v) if (_qd_t := type(_qd_v := {value})) in _qd_PLAIN "
            f"else id(_qd_v) if _qd_t in _qd_BY_ID else _qd_slow_key(_qd_v))")


def _keys_source(names, slots, cached):
    """The key tuple's source. The slots of a parameter in `cached` ({position: attribute}: frozen dataclasses)
    make one sub-key, computed once per instance and kept on it with the instance's id(), which a copy does not
    share (a deep copy has new members). Genesis passes frozen dataclasses with dozens of qd.Tensor members."""
    parts, seen = [], set()
    for k, path, kind in slots:
        if k not in cached:
            parts.append(_slot_key(names[k], path, kind))
        elif k not in seen:
            seen.add(k)
            name = names[k]
            parts.append(f"(_qd_c[1] if (_qd_c := getattr({name}, {cached[k]!r}, None)) is not None and "
                         f"_qd_c[0] == id({name}) else _qd_store{k}({name}))")
    return "(" + "".join(part + ", " for part in parts) + ")"


def _tensor_slot_key(value):
    """What _slot_key's inlined 'tensor' expression computes, as a function."""
    t = type(value)
    if t in _ARRAY_TYPES or (t in _WRAPPERS and type(value._impl) in _ARRAY_TYPES):
        return _ARRAY_KEY
    return tensor_key(value)


def _getter(path):
    if not path:
        return lambda value: value
    if all("." not in name for name in path):
        return operator.attrgetter(".".join(path))
    return lambda value: functools.reduce(getattr, path, value)


class SubKey:
    """A frozen dataclass argument's part of the template key, as one object: equal parts share one SubKey
    (canonical_subkey), which hashes and compares by identity. A call's key holds one per such argument instead of
    the tuple of its members' keys, which Python would hash anew on every call (tuples keep no hash): Genesis
    passes a dozen dataclasses of dozens of members, and hashing their keys took 7 us of each launch."""

    __slots__ = ("parts", "__weakref__")

    def __init__(self, parts):
        self.parts = parts

    def __repr__(self):
        return f"SubKey{self.parts!r}"


# parts -> its SubKey while a key or an argument holds it; entries go with the last of them.
_SUBKEYS = weakref.WeakValueDictionary()


def canonical_subkey(parts):
    """The SubKey of `parts` (a tuple of template keys): the same object for equal parts."""
    subkey = _SUBKEYS.get(parts)
    if subkey is None:
        subkey = _SUBKEYS.setdefault(parts, SubKey(parts))
    return subkey


def _store_functions(slots, cached):
    """{'_qd_storeK': function} for each cached parameter K: computes its sub-key (the slots' keys, as the inlined
    expressions would) and keeps it on the instance if it can. Plain closures rather than generated source: they
    run once per instance, and Genesis' dataclasses made 10 MB of source to compile at import (2-4 s). Their
    attribute getters are made on first use, as most of a program's kernels are never called."""
    functions = {}
    for k, attr in cached.items():
        own = [(path, kind) for j, path, kind in slots if j == k]
        made = [None]  # the (getter, key function) pairs, once made; built whole, then stored (threads)

        def store(value, own=own, made=made, attr=attr):
            parts = made[0]
            if parts is None:
                parts = made[0] = tuple((_getter(path), _tensor_slot_key if kind == "tensor" else template_key)
                                        for path, kind in own)
            key = canonical_subkey(tuple(key_of(get(value)) for get, key_of in parts))
            try:
                object.__setattr__(value, attr, (id(value), key))
            except (AttributeError, TypeError):  # __slots__ dataclasses: computed on every call
                pass
            return key

        functions[f"_qd_store{k}"] = store
    return functions


def _compile(source, function_name, label, namespace):
    namespace.update(_qd_PLAIN=_PLAIN, _qd_BY_ID=_BY_ID, _qd_slow_key=_slow_key, _qd_tensor_key=tensor_key,
                     _qd_ARRAY_KEY=_ARRAY_KEY, _qd_ARRAYS=_ARRAY_TYPES, _qd_WRAPPERS=_WRAPPERS)
    code = compile(source, f"<quadrants {label}>", "exec")
    exec(code, namespace)  # noqa: S102 - source built here from parameter names, positions and attribute names
    return namespace[function_name]


def make_key_function(names, slots, cached=None):
    """key(*args): the template key of one call; slots are (parameter position, attribute path, kind) triples,
    kind 'template' or 'tensor' (tensor_params.py); cached: see _keys_source."""
    cached = cached or {}
    source = f"def key({', '.join(names)}):\n    return {_keys_source(names, slots, cached)}\n"
    return _compile(source, "key", "template key", _store_functions(slots, cached))


def make_kernel_function(label, names, slots, lookup, miss, retry, check, cached=None, last=None):
    """The function users call: finds the entry for this call's template key and runs it.

    lookup(key) -> entry or None; miss(key, args) -> a new entry; retry(key, args) runs the call again
    after an entry's launcher met a leaf outside its plan (PlanChanged); check(args) turns an
    AttributeError of a wrong dataclass argument into a TypeError; last: a one-item list that gets each
    call's key before its launch (launch_records.LastLaunch), the one store per call that upstream's
    introspection of the last launch costs.
    """
    params = ", ".join(names)
    args = f"({params},)" if names else "()"
    cached = cached or {}
    # Named as the kernel, so Python's own errors for a wrong call read "foo() missing 1 required ...".
    function_name = label if label.isidentifier() and not keyword.iskeyword(label) and not label.startswith("_qd") \
        else "kernel"
    source = (
        f"def {function_name}({params}):\n"
        f"    try:\n"
        f"        _qd_key = {_keys_source(names, slots, cached)}\n"
        f"    except AttributeError:\n"
        f"        _qd_check({args})\n"
        f"        raise\n"
        f"    _qd_last[0] = _qd_key\n"
        f"    _qd_entry = _qd_lookup(_qd_key)\n"
        f"    if _qd_entry is None:\n"
        f"        _qd_entry = _qd_miss(_qd_key, {args})\n"
        f"    try:\n"
        f"        return _qd_entry({params})\n"
        f"    except _qd_PlanChanged:\n"
        f"        return _qd_retry(_qd_key, {args})\n"
        f"    except AttributeError:\n"
        f"        _qd_check({args})\n"
        f"        raise\n"
    )
    namespace = {"_qd_lookup": lookup, "_qd_miss": miss, "_qd_retry": retry, "_qd_check": check,
                 "_qd_PlanChanged": PlanChanged, "_qd_last": [None] if last is None else last,
                 **_store_functions(slots, cached)}
    return _compile(source, function_name, f"kernel '{label}'", namespace)


def make_entry_function(label, arity, regular_positions, plan, root_positions, launcher):
    """entry(a0, ..., aN): the launcher called with the regular arguments, then every planned leaf read anew."""
    args = ", ".join(f"a{k}" for k in range(arity))
    values = [f"a{k}" for k in regular_positions]
    values += [_access(f"a{root_positions[leaf.path[0]]}", leaf.path[1:]) for leaf in plan]
    source = f"def entry({args}):\n    return _qd_launcher({', '.join(values)})\n"
    return _compile(source, "entry", f"kernel '{label}' entry", {"_qd_launcher": launcher})


def make_flat_args_function(label, arity, regular_positions, plan, root_positions):
    """flat(a0, ..., aN): the tuple an entry's launcher would be called with (make_entry_function), for a caller that
    needs the launcher's arguments without launching (kernels/observed_launch.py)."""
    args = ", ".join(f"a{k}" for k in range(arity))
    values = [f"a{k}" for k in regular_positions]
    values += [_access(f"a{root_positions[leaf.path[0]]}", leaf.path[1:]) for leaf in plan]
    source = f"def flat({args}):\n    return ({''.join(v + ', ' for v in values)})\n"
    return _compile(source, "flat", f"kernel '{label}' launcher arguments", {})
