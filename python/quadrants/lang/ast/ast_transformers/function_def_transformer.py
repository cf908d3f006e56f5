# python/quadrants/lang/ast/ast_transformers/function_def_transformer.py: upstream's FunctionDefTransformer helper
# that binds a dataclass parameter's members under their flat names (frontend/flat_dataclass_names.py).
#
# Our frontend binds a dataclass argument as one compound value (frontend/compound_params.py); upstream's binds one
# variable per member, `__qd_s__qd_a` for `s.a`, and this is that binding, for code written against its transformers.
import dataclasses

from quadrants.frontend.compound_params import dataclass_schema
from quadrants.frontend.flat_dataclass_names import create_flat_name


class FunctionDefTransformer:
    @staticmethod
    def _transform_func_arg(ctx, argument_name, argument_type, data):
        """ctx.create_variable(flat name, member value) for each member of the dataclass value `data` (nested
        dataclasses expanded in place); a parameter of another type is one variable under its own name."""
        if not (isinstance(argument_type, type) and dataclasses.is_dataclass(argument_type)):
            ctx.create_variable(argument_name, data)
            return
        for member in dataclass_schema(argument_type).members.values():
            flat = create_flat_name(argument_name, member.name)
            FunctionDefTransformer._transform_func_arg(ctx, flat, member.annotation if member.kind == "struct" else
                                                       None, getattr(data, member.name))


__all__ = ["FunctionDefTransformer"]
