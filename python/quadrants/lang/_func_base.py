# python/quadrants/lang/_func_base.py: upstream's module of its kernel/func base class; here only its dataclass member
# plan, _get_frozen_dc_plan (frontend/flat_dataclass_names.member_plan), and that plan's cache, for programs that
# import them. Our kernels read a dataclass argument's leaves with the attribute loads of their generated entry
# (kernels/dispatch.py); each entry records the plan of its frozen dataclass arguments here when it is made
# (kernels/launch_records.record_member_plans). Upstream's per-instance `_qd_dc_unwrapped` has no counterpart: an
# entry reads the members themselves on every launch.
from quadrants.frontend.flat_dataclass_names import member_plan, member_plans

_frozen_dc_plans = member_plans  # cleared by qd.reset()


class FuncBase:
    """Upstream's base class of its kernel and func objects, whose AST transformers read `func_id` from the function
    being translated. Our kernels and funcs are kernels/kernel.Kernel and frontend/funcs.Func; this class is the name
    upstream's AST helpers (lang/ast/ast_transformers) take their function context's `func` as."""

    func_id = 0


def _get_frozen_dc_plan(used_params, struct_cls, basename, fields_dict):
    """((member name, flat name, annotation), ...) of the members of `struct_cls` whose flat names `used_params`
    holds; fields_dict: the dataclass's fields by name."""
    return member_plan(used_params, struct_cls, basename, fields_dict)


__all__ = ["FuncBase", "_frozen_dc_plans", "_get_frozen_dc_plan"]
