# python/quadrants/lang/ast/ast_transformers/call_transformer.py: upstream's CallTransformer helper that expands a
# dataclass argument of a func call into its members' flat names (frontend/flat_dataclass_names.py).
#
# Our frontend passes a dataclass argument to a @qd.func as one compound value (frontend/func_args.py); upstream's
# AST rewrite passes `f(s)` as `f(__qd_s__qd_a, __qd_s__qd_b, ...)`, and this is that rewrite, for code written
# against upstream's transformers.
import ast
import dataclasses

from quadrants.frontend.flat_dataclass_names import flat_leaves


class CallTransformer:
    @staticmethod
    def _expand_Call_dataclass_args(ctx, args):
        """(the names added, the new argument list): each ast.Name argument whose `ptr` is a dataclass type becomes
        one Name per member (nested dataclasses expanded in place), those the kernel's pruning keeps; the other
        arguments stay as they are."""
        used = ctx.global_context.pruning.used_names()
        added, out = [], []
        for arg in args:
            cls = getattr(arg, "ptr", None)
            if not (isinstance(arg, ast.Name) and isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                out.append(arg)
                continue
            for flat, _annotation in flat_leaves(arg.id, cls, used):
                name = ast.copy_location(ast.Name(id=flat, ctx=ast.Load()), arg)
                added.append(name)
                out.append(name)
        return added, out


__all__ = ["CallTransformer"]
