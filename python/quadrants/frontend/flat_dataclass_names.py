# python/quadrants/frontend/flat_dataclass_names.py: upstream's flattened names of dataclass parameters.
#
# Upstream compiles a dataclass parameter `s` by rewriting the kernel's AST: `s.a.b` becomes the name `__qd_s__qd_a__qd_b`
# and each member becomes a parameter (or, for a qd.template() member, a global) of that name. Here a dataclass
# argument is a CompoundRef while the kernel is translated (compound_params.py), but upstream's names stay visible:
# the launch records report the leaves a launch passes under them (kernels/launch_records.py), and programs and
# tools written against upstream's quadrants.lang._kernel_impl_dataclass and _dataclass_util use these helpers.
# Members are read from the dataclass schema, so a member kernels cannot take raises the same error as a kernel.
import ast
import dataclasses

from quadrants.base import registry
from quadrants.data.tensor import unwrap
from quadrants.frontend.compound_params import dataclass_schema, is_dataclass_type

PREFIX = "__qd_"


def create_flat_name(basename, child_name):
    """`__qd_<basename>__qd_<child_name>`; a basename that is already flat keeps its one leading prefix."""
    if basename.startswith(PREFIX):
        return f"{basename}{PREFIX}{child_name}"
    return f"{PREFIX}{basename}{PREFIX}{child_name}"


def flat_leaves(name, cls, used=None):
    """(flat name, annotation) of each member of dataclass `cls` passed as `name` that is not itself a dataclass,
    nested dataclasses expanded in place, in declaration order. used: a set of flat names; a member (or a nested
    dataclass) whose flat name is not in it is left out, as upstream does for members a kernel never reads."""
    leaves = []
    for member in dataclass_schema(cls).members.values():
        flat = create_flat_name(name, member.name)
        if used is not None and flat not in used:
            continue
        if member.kind == "struct":
            leaves.extend(flat_leaves(flat, member.annotation, used))
        else:
            leaves.append((flat, member.annotation))
    return leaves


def global_members(name, cls, value, into, every_member=False):
    """Puts into the dict `into`, under its flat name, the value of each member of the dataclass instance `value`
    that a kernel reads as a global (qd.template() and qd.Tensor members: fields, compile-time values; a qd.Tensor
    wrapper gives what it wraps), nested dataclasses included; every_member: the other members too."""
    for member in dataclass_schema(cls).members.values():
        flat = create_flat_name(name, member.name)
        child = getattr(value, member.name)
        if member.kind == "struct":
            global_members(flat, member.annotation, child, into, every_member)
        elif member.kind in ("template", "tensor"):
            into[flat] = unwrap(child)
        elif every_member:
            into[flat] = child
    return into


class _FlattenMemberAccess(ast.NodeTransformer):
    """Rewrites `s.a.b` to the Name `__qd_s__qd_a__qd_b` where that flat name is one of `names`."""

    def __init__(self, names):
        self.names = names

    def visit_Attribute(self, node):
        flat = _flat_name_of(node)
        if flat is None or flat not in self.names:
            return self.generic_visit(node)
        return ast.copy_location(ast.Name(id=flat, ctx=node.ctx), node)


def _flat_name_of(node):
    """The flat name an attribute chain on a plain name spells (`s.a.b` -> `__qd_s__qd_a__qd_b`), else None."""
    if isinstance(node.value, ast.Name):
        return create_flat_name(node.value.id, node.attr)
    if isinstance(node.value, ast.Attribute):
        base = _flat_name_of(node.value)
        return None if base is None else create_flat_name(base, node.attr)
    return None


def flatten_member_access(tree, names):
    """`tree` with each member access whose flat name is in `names` replaced by a Name (the longest chain first, so
    `s.a.shape` becomes `__qd_s__qd_a.shape` when `__qd_s__qd_a` is a name); locations are filled in."""
    tree = _FlattenMemberAccess(set(names)).visit(tree)
    return ast.fix_missing_locations(tree)


# (id(used), cls, basename) -> (used, plan). The key's set is kept in the entry and compared by identity, since a
# new set may be allocated at a collected one's address. Cleared by qd.reset(), as upstream's.
member_plans = {}
registry.on_reset(member_plans.clear)


def member_plan(used, cls, basename, members=None):
    """((member name, flat name, annotation), ...) of the direct members of dataclass `cls` passed as `basename`
    whose flat names are in the set `used`; members: the dataclass's fields by name (default: all of them).
    Cached per (used set, class, basename), as upstream's _get_frozen_dc_plan."""
    key = (id(used), cls, basename)
    entry = member_plans.get(key)
    if entry is not None and entry[0] is used:
        return entry[1]
    if not is_dataclass_type(cls):
        raise TypeError(f"member_plan() expects a dataclass type as cls, but got {cls!r}")
    declared = {f.name for f in dataclasses.fields(cls)}  # dataclass fields only: no ClassVar or InitVar
    fields = members.values() if members is not None else dataclasses.fields(cls)
    plan = tuple((f.name, flat, f.type) for f in fields
                 if f.name in declared and (flat := create_flat_name(basename, f.name)) in used)
    member_plans[key] = (used, plan)
    return plan


__all__ = ["PREFIX", "create_flat_name", "flat_leaves", "flatten_member_access", "global_members", "member_plan",
           "member_plans"]
