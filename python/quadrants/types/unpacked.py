# python/quadrants/types/unpacked.py: `r: qd.types.vector(N, dtype, unpacked=True)` members of struct types.
#
# As upstream, the flag only means something on a struct member (@qd.dataclass, qd.types.struct): the member
# becomes N scalar members `_r0 .. _r{N-1}` of the struct type (type._unpacked_groups records the group), so
# each entry is a local of its own for the compiler, as N hand-written scalars would be. Inside kernels `s.r[i]`
# with a compile-time int i reads or writes `s._r{i}`; any other use of `s.r` is refused. Anywhere else (a value
# T(...), T.field(), T.ndarray(), a parameter annotation) the type is refused with a QuadrantsSyntaxError.
from quadrants.base.errors import QuadrantsSyntaxError


def member_name(group, index):
    """The scalar member that holds entry `index` of the unpacked group `group` (upstream's naming)."""
    return f"_{group}{index}"


def reject(vector_type, what):
    """A QuadrantsSyntaxError where an unpacked vector type is used other than as a struct member annotation."""
    if getattr(vector_type, "unpacked", False):
        raise QuadrantsSyntaxError(
            f"cannot {what} a vector declared with unpacked=True ({vector_type!r}): the unpacked layout is only "
            "honored on @qd.dataclass member annotations. Drop unpacked=True, or use the type as a member "
            "annotation, e.g. `r: qd.types.vector(N, dtype, unpacked=True)` in a class decorated with @qd.dataclass.")


def expand_members(members, check_member_type, owner):
    """(members with each unpacked vector member replaced by its scalars, {group: (count, dtype, member_name)})."""
    expanded, groups = {}, {}
    for key, member_type in members.items():
        if getattr(member_type, "unpacked", False):
            if len(member_type.shape) != 1:
                where = f" of {owner}" if owner else ""
                raise QuadrantsSyntaxError(f"member '{key}'{where}: only vectors can be unpacked.")
            groups[key] = (member_type.n, member_type.dtype, member_name)
            for i in range(member_type.n):
                _add(expanded, member_name(key, i), member_type.dtype, key)
        else:
            _add(expanded, key, check_member_type(key, member_type, owner), None)
    return expanded, groups


def _add(expanded, name, member_type, group):
    if name in expanded:
        # Either order: `_r0` declared before or after `r: vector(..., unpacked=True)`.
        raise QuadrantsSyntaxError(f"member name '{name}' collides with a member generated for a vector declared "
                                   "with unpacked=True (its entries are the members _<name><i>). Rename the "
                                   "colliding member or the unpacked vector.")
    expanded[name] = member_type


def group_of(struct_type, attr):
    """(count, dtype, member_name) when `attr` is an unpacked vector member of struct_type; else None."""
    groups = getattr(struct_type, "_unpacked_groups", None)
    return groups.get(attr) if groups else None


class UnpackedGroup:
    """`s.r` of an unpacked vector member inside a kernel: only `s.r[i]` (i a compile-time int) is allowed.

    `members` is the struct's member dict: values (StructValue) when read, targets (StructTarget) when assigned.
    """

    def __init__(self, name, count, members):
        self.name, self.count, self.members = name, count, members

    def entry(self, index, fail):
        """The member holding entry `index`; fail(message) (the translator's syntax error at the current line) for
        a runtime or out-of-range index."""
        import numbers

        if not isinstance(index, numbers.Integral) or isinstance(index, bool):
            raise fail(f"unpacked vector {self.name}[i] requires a python-int index (a constant, or a "
                       "qd.static(range(...)) loop variable), but this index is not a compile-time int")
        if not 0 <= index < self.count:
            raise fail(f"unpacked vector index out of bounds: {self.name}[{index}] (count={self.count})")
        return self.members[member_name(self.name, int(index))]

    def describe_value(self):
        return (f"the unpacked vector '{self.name}' (only {self.name}[i] with a compile-time int i can be used; "
                "declare it without unpacked=True to use it as a vector)")
