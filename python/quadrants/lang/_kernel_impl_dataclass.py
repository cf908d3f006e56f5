# python/quadrants/lang/_kernel_impl_dataclass.py: upstream's helpers over the flattened names of dataclass parameters
# (frontend/flat_dataclass_names.py), under upstream's names and signatures.
from quadrants.frontend.compound_params import is_dataclass_type
from quadrants.frontend.flat_dataclass_names import PREFIX, flat_leaves, flatten_member_access, global_members
from quadrants.lang.kernel_arguments import ArgMetadata


def expand_func_arguments(used_py_dataclasses_parameters_enforcing, arguments):
    """The ArgMetadata list `arguments` with each dataclass parameter replaced by its members' flat names and
    annotations (nested dataclasses expanded); with a set of used flat names, members not in it are left out."""
    used = used_py_dataclasses_parameters_enforcing
    expanded = []
    for argument in arguments:
        if is_dataclass_type(argument.annotation):
            expanded += [ArgMetadata(annotation, flat) for flat, annotation in
                         flat_leaves(argument.name, argument.annotation, used)]
        elif used is None or not argument.name.startswith(PREFIX) or argument.name in used:
            expanded.append(argument)
    return expanded


def unpack_ast_struct_expressions(tree, struct_locals):
    """`tree` with member accesses `s.a.b` whose flat names are in `struct_locals` replaced by those names."""
    return flatten_member_access(tree, struct_locals)


def populate_global_vars_from_dataclass(param_name, param_type, py_arg, global_vars, populate_all_fields=False):
    """Adds to `global_vars`, by flat name, the members of `py_arg` a kernel reads as globals (qd.template() and
    qd.Tensor members); populate_all_fields: every member."""
    global_members(param_name, param_type, py_arg, global_vars, populate_all_fields)


__all__ = ["expand_func_arguments", "populate_global_vars_from_dataclass", "unpack_ast_struct_expressions"]
