# python/quadrants/lang/_pruning.py: upstream's Pruning, which members of dataclass parameters a kernel keeps.
#
# Upstream passes a dataclass parameter as one parameter per member (flat names, frontend/flat_dataclass_names.py)
# and, on a second pass, prunes the members the kernel never reads. Our kernels decide which leaves a launch passes
# while translating (compound_params.py); this class carries upstream's record of the used flat names for its AST
# helpers (lang/ast/ast_transformers), None meaning that every member is kept.


class Pruning:
    """kernel_used_parameters: the flat names a kernel reads (a set), or None before pruning: every member is kept."""

    def __init__(self, kernel_used_parameters=None):
        if kernel_used_parameters is not None and not isinstance(kernel_used_parameters, (set, frozenset)):
            raise TypeError(f"Pruning(kernel_used_parameters=...) expects a set of flat parameter names or None, but "
                            f"got {type(kernel_used_parameters).__name__}.")
        self.kernel_used_parameters = kernel_used_parameters

    def used_names(self):
        """The flat names to keep, or None for all of them."""
        return self.kernel_used_parameters


__all__ = ["Pruning"]
