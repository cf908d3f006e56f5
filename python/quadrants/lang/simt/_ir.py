# python/quadrants/lang/simt/_ir.py: the kernel built-ins behind qd.simt: block/subgroup IR ops and shared arrays.
#
# Each op is a composite Builtin (lang/builtins.py): inside a kernel the translator calls its impl with
# the vector ops, and it returns an IR expression or emits a statement (docs/IR.md, "Blocks and
# subgroups"). Called from Python scope they raise, as every kernel-only built-in does.
from .. import builtins as _builtins
from ..ir_builder import Expr
from ..simt_values import SharedArray
from ..types import scalar_dtype_name


def _scalar_text(ops, value, what):
    return ops.text(ops.tr.scalar(value, what))


def _expr_op(name, qualname, arity, waits):
    """A built-in for `(simt NAME ARG...)`; ops that wait for other threads are evaluated exactly once."""

    def impl(ops, *args):
        if len(args) != arity:
            raise ops.tr.fail(f"{qualname}() takes {arity} argument(s), but was given {len(args)}", kind="type")
        texts = [_scalar_text(ops, a, f"argument {k + 1} of {qualname}()") for k, a in enumerate(args)]
        return Expr(f"(simt {name}{''.join(' ' + t for t in texts)})", side_effect=waits)

    return _builtins.Builtin(qualname, _builtins.kernel_only(qualname), "composite", impl=impl)


def _stmt_op(head, qualname):
    """A built-in that emits the statement `(HEAD)`, e.g. `(sync block)`."""

    def impl(ops):
        ops.tr.builder.emit(head)

    return _builtins.Builtin(qualname, _builtins.kernel_only(qualname), "composite", impl=impl)


def _shared_array(ops, shape, dtype):
    tr = ops.tr
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not shape or not all(isinstance(s, int) and s > 0 for s in shape):
        raise tr.fail(f"qd.simt.block.SharedArray(shape, dtype) needs a positive int or a tuple of positive ints "
                      f"known at compile time as its shape, but got {shape!r}", kind="type")
    element = getattr(dtype, "dtype", None) if hasattr(dtype, "n") else None  # qd.types.vector/matrix: its scalar
    if element is not None:
        raise tr.fail("qd.simt.block.SharedArray of vectors or matrices is not supported yet; use a scalar dtype "
                      "and one more dimension", kind="type")
    dtype_name = scalar_dtype_name(dtype)
    name = tr.names.fresh("shared")
    tr.builder.emit(f"shared {name} {dtype_name} ({' '.join(str(s) for s in shape)})")
    return SharedArray(name, dtype_name, tuple(shape))


shared_array = _builtins.Builtin("simt.block.SharedArray", _builtins.kernel_only("simt.block.SharedArray"),
                                 "composite", impl=_shared_array)
