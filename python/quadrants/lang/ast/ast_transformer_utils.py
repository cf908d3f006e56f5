# python/quadrants/lang/ast/ast_transformer_utils.py: upstream's translation contexts, for its AST helpers.
#
# Upstream's transformers take a per-function context (the function being translated, its variables) inside a
# global one (the kernel's pruning of dataclass members). Our frontend keeps that state on its Translator
# (frontend/translator.py); these classes are the shapes upstream's helpers in lang/ast/ast_transformers read.
from quadrants.lang._pruning import Pruning


class ASTTransformerGlobalContext:
    """What a whole kernel's translation shares: `pruning`, the dataclass members it keeps."""

    def __init__(self, pruning=None):
        self.pruning = pruning if pruning is not None else Pruning()


class ASTTransformerFuncContext:
    """One function's translation: `func` (a FuncBase), `global_context`, and its variables by name."""

    def __init__(self, func=None, global_context=None):
        self.func = func
        self.global_context = global_context if global_context is not None else ASTTransformerGlobalContext()
        self.variables = {}

    def create_variable(self, name, data):
        if name in self.variables:
            raise KeyError(f"variable '{name}' is already defined in this function")
        self.variables[name] = data


__all__ = ["ASTTransformerFuncContext", "ASTTransformerGlobalContext"]
