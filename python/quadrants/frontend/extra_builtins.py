# python/quadrants/frontend/extra_builtins.py: translation of qd.stop_grad, qd.volatile_load, qd.block_local,
# impl.call_internal and impl.subscript, the built-ins that act on what an argument names rather than on its value.
import ast

from quadrants.frontend.ir_builder import Expr, _sexpr_end
from quadrants.frontend.sparse_access import FieldRef
from quadrants.frontend.struct_values import StructField
from quadrants.frontend.values import ArrayRef, VectorValue
from quadrants.frontend.vector_ops import describe

KINDS = frozenset({"stop_grad", "volatile_load", "block_local", "call_internal"})


def subscript_call_node(tr, node):
    """`impl.subscript(builder, value, *indices)`, upstream's spelling of `value[indices]` in Python helpers called
    from kernels, as the Subscript node it stands for (so it reads and is assigned to, or updated atomically, like
    one); None when `node` is another call. The builder (compiling_callable.ast_builder()) is not needed here."""
    if not isinstance(node, ast.Call) or getattr(tr.visit(node.func), "kind", None) != "subscript":
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) < 3:
        raise tr.fail("impl.subscript(ast_builder, value, *indices) takes the builder, the value and at least one "
                      "index, as positional arguments", kind="type")
    indices = node.args[2:]
    index = indices[0] if len(indices) == 1 else ast.Tuple(elts=indices, ctx=ast.Load())
    return ast.copy_location(ast.Subscript(value=node.args[1], slice=index, ctx=ast.Load()), node)


def translate(tr, func, args, kwargs):
    """A call of one of the KINDS built-ins inside a kernel."""
    if kwargs:
        raise tr.fail(f"qd.{func.name}() takes no keyword arguments, but got {', '.join(sorted(kwargs))}", kind="type")
    if func.kind == "call_internal":
        return call_internal(tr, args)
    if func.kind == "block_local":
        return block_local(tr, args)
    if len(args) != 1:
        raise tr.fail(f"qd.{func.name}() takes 1 argument, but got {len(args)}", kind="type")
    if func.kind == "stop_grad":
        return stop_grad(tr, args[0])
    return volatile_load(tr, args[0])


def stop_grad(tr, target):
    """qd.stop_grad(x): in the calling block (all of it, as upstream) and the blocks inside it, reads of the
    field or ndarray x pass no gradient to x; the values read are unchanged."""
    if isinstance(target, StructField):
        raise tr.fail("qd.stop_grad() takes a scalar, vector or matrix field or an ndarray, but got a struct "
                      "field", kind="type", hint="call it on each member field.")
    if not isinstance(target, ArrayRef):
        raise tr.fail(f"qd.stop_grad() takes a field or an ndarray, but got {describe(target)}", kind="type",
                      hint="pass the field itself (qd.stop_grad(x)), not an element of it.")
    tr.builder.stop_gradient(target.name)


def volatile_load(tr, target):
    """qd.volatile_load(x[i]): x[i], read from memory every time the expression is evaluated."""
    if isinstance(target, (ArrayRef, StructField)):
        raise tr.fail("cannot pass a Field directly to 'qd.volatile_load'; index it first (e.g. `field[None]`)")
    if isinstance(target, VectorValue):  # an element of a vector/matrix array: each entry is a load
        if not all(_is_load(e) for e in target.entries):
            raise tr.fail("qd.volatile_load() reads global memory, but was given a local array (a vector or matrix "
                          "local), which no other thread can write", kind="type")
        return VectorValue([_volatile(e) for e in target.entries], target.shape)
    if not _is_load(target):
        raise tr.fail("qd.volatile_load requires an lvalue (field / ndarray subscript) as its argument, but got "
                      f"{describe(target)}")
    return _volatile(target)


def _is_load(value):
    if not isinstance(value, Expr) or not value.text.startswith("(load "):
        return False

    return _sexpr_end(value.text, 0) == len(value.text)


def _volatile(load):
    return Expr(f"(un volatile_load {load.text})")


def block_local(tr, args):
    """qd.block_local(*fields): upstream's hint to cache the fields in CUDA shared memory (block local storage)
    inside the next parallel loop. It never changes results, and quadrants does not stage fields in shared memory
    (the CPU reads through its caches; CUDA through L1), so it is accepted and has no effect, as on upstream's CPU
    backend. Arguments that are not fields are errors, as upstream's."""
    for arg in args:
        if not isinstance(arg, (FieldRef, StructField)):
            raise tr.fail(f"qd.block_local() takes fields, but got {describe(arg)}", kind="type")


# upstream's runtime functions that are features with a meaning of their own, and test_stack, the self-test of
# a structure quadrants has too (the AD stack); the others test its LLVM runtime's data structures (list manager,
# node allocator), which quadrants does not have.
_INTERNAL_RESULTS = {
    "do_nothing": lambda tr, args: 0,
    "refresh_counter": lambda tr, args: 0,  # a no-op in upstream's runtime too
    "test_internal_func_args": lambda tr, args: _func_args_result(tr, args),
    "test_stack": lambda tr, args: _stack_self_test(tr),
}


def call_internal(tr, args):
    """impl.call_internal(name, *args): one of upstream's runtime functions, by name; its i32 result."""
    if not args or not isinstance(args[0], str):
        raise tr.fail("impl.call_internal() takes the name of an internal function first", kind="type")
    name, rest = args[0], args[1:]
    result = _INTERNAL_RESULTS.get(name)
    if result is None:
        raise tr.fail(f"impl.call_internal('{name}') names a function of upstream's LLVM runtime that quadrants "
                      "does not have", kind="type",
                      hint=f"quadrants supports {', '.join(sorted(_INTERNAL_RESULTS))}; the others test upstream's "
                      "own runtime data structures (list manager, node allocator).")
    if name != "test_internal_func_args" and rest:
        raise tr.fail(f"impl.call_internal('{name}') takes no arguments, but got {len(rest)}", kind="type")
    value = result(tr, rest)
    return Expr(f"(const i32 {value})") if isinstance(value, int) else value


def _stack_self_test(tr):
    """upstream's test_stack checks its LLVM runtime's AD stack; this checks ours, the (ad_stack ...) statements
    reverse_ad writes (docs/IR.md), in the calling thread: four values pushed come back last to first, the stack
    keeping the earlier ones. 0 when they do, as upstream's result, else the number of values that did not."""
    stack, misses = tr.names.fresh("_qd_test_stack"), tr.names.fresh("_qd_test_stack_misses")
    tr.builder.emit(f"ad_stack {stack} i32 4")
    tr.builder.emit(f"decl {misses} i32 (const i32 0)")
    for value in (1, 2, 3, 4):
        tr.builder.emit(f"ad_push {stack} (const i32 {value})")
    for value in (4, 3, 2, 1):
        miss = f"(cast i32 (bin ne (ad_top {stack}) (const i32 {value})))"
        tr.builder.emit(f"assign {misses} (bin add (var {misses}) {miss})")
        tr.builder.emit(f"ad_pop {stack}")
    return Expr(f"(var {misses})")


def _func_args_result(tr, args):
    """upstream's test_internal_func_args(f32 i, f32 j, i32 k): i32((i + j) * k)."""
    if len(args) != 3:  # upstream's wording first: its tests match it
        raise tr.fail(f"{len(args)} arguments were passed in but expected 3: impl.call_internal("
                      "'test_internal_func_args', i, j, k) takes f32, f32, i32", kind="type")
    for position, (value, wanted) in enumerate(zip(args, ("f32", "f32", "i32")), start=1):
        # Its signature is exact, as upstream's: a Python number has the default type of its kind (kernel values
        # are converted, since the frontend does not know their types).
        given = tr.default_fp if isinstance(value, float) else tr.default_ip if isinstance(value, int) else None
        if given is not None and given != wanted:
            raise tr.fail(f"impl.call_internal('test_internal_func_args', ...): expected {wanted} for argument "
                          f"#{position}, but got {given} ({value!r})", kind="type")
    i, j, k = (tr.ops.text(tr.scalar(a, "an argument of call_internal")) for a in args)
    total = f"(bin add (cast f32 {i}) (cast f32 {j}))"
    return Expr(f"(cast i32 (bin mul {total} (cast f32 (cast i32 {k}))))")
