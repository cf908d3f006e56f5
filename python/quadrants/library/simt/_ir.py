# python/quadrants/library/simt/_ir.py: the kernel built-ins behind qd.simt: block/subgroup IR ops and shared arrays.
#
# Each op is a composite Builtin (frontend/builtins.py): inside a kernel the translator calls its impl with
# the vector ops, and it returns an IR expression or emits a statement (docs/IR.md, "Blocks and
# subgroups"). Called from Python scope they raise, as every kernel-only built-in does.
import warnings

from quadrants.frontend import builtins as _builtins
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.simt_values import SharedArray
from quadrants.types.annotations import VectorType, scalar_dtype_name


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
    """A built-in that emits the statement `(HEAD)`, e.g. `(sync block)`. A memory fence outside a
    parallel loop does nothing (one thread runs there, and launches are ordered), as upstream allows it."""

    def impl(ops):
        if head.startswith("fence") and not ops.tr.parallel_depth:
            return
        ops.tr.builder.emit(head)

    return _builtins.Builtin(qualname, _builtins.kernel_only(qualname), "composite", impl=impl)


def deprecated(module_globals, old, new, target, wrap=None):
    """The old name `old` of `new` in a qd.simt module, as upstream's: the first use in the process warns
    (DeprecationWarning; the flag `_<old>_deprecation_warned` in the module says whether it did). In a
    kernel it does what `target` (a composite Builtin) does, `wrap` adapting the result; called in Python
    scope it forwards to the module's current `new`."""
    module = module_globals["__name__"].rsplit(".", 1)[-1]
    flag = f"_{old}_deprecation_warned"
    module_globals[flag] = False

    def warn_once():
        if not module_globals[flag]:
            module_globals[flag] = True
            warnings.warn(f"qd.simt.{module}.{old}() is deprecated; use qd.simt.{module}.{new}() instead.",
                          DeprecationWarning, stacklevel=3)

    def python_impl(*args):
        warn_once()
        return module_globals[new](*args)

    def impl(ops, *args):
        warn_once()
        ops.tr.reads.uncacheable("a deprecation warning")  # a cached translation would not warn in a new process
        result = target.impl(ops, *args)
        return wrap(result) if wrap else result

    return _builtins.Builtin(f"simt.{module}.{old}", python_impl, "composite", impl=impl)


def _shared_array(ops, shape, dtype):
    tr = ops.tr
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not shape or not all(isinstance(s, int) and s > 0 for s in shape):
        raise tr.fail(f"qd.simt.block.SharedArray(shape, dtype) needs a positive int or a tuple of positive ints "
                      f"known at compile time as its shape, but got {shape!r}", kind="type")
    element_shape = ()
    if isinstance(dtype, VectorType):  # qd.types.vector/matrix, qd.math.vec3: trailing dims of its scalar
        element_shape, dtype = dtype.shape, (float if dtype.dtype is None else dtype.dtype)
    try:
        dtype_name = scalar_dtype_name(dtype)
    except (TypeError, ValueError, KeyError):
        raise tr.fail(f"qd.simt.block.SharedArray(shape, dtype) needs a scalar, vector or matrix dtype, but got "
                      f"{dtype!r}", kind="type") from None
    name = tr.names.fresh("shared")
    tr.builder.emit(f"shared {name} {dtype_name} ({' '.join(str(s) for s in tuple(shape) + element_shape)})")
    return SharedArray(name, dtype_name, tuple(shape), element_shape)


shared_array = _builtins.Builtin("simt.block.SharedArray", _builtins.kernel_only("simt.block.SharedArray"),
                                 "composite", impl=_shared_array)
