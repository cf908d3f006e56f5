# python/quadrants/frontend/sparse_loops.py: struct-fors over sparse fields and SNodes, in the forms that skip
# inactive cells cheaply.
#
# - element-wise (every backend): a parallel_for over every cell of the field whose body starts with
#   `if (not active) continue` (the innermost sparse node decides: see field_layout.py);
# - blocked (the CPU, a pointer decides): parallel over the pointer's cells, skipping an inactive one at once,
#   with serial loops over each active cell's block;
# - listed (the CPU, a dynamic list decides): parallel over the lists, with a serial loop over each list's
#   entries, so a loop costs what was appended, not the lists' capacity.
from quadrants.data.snode import SNode
from quadrants.data.struct_field import StructField
from quadrants.frontend.ir_builder import Expr, Stmt, name_clause
from quadrants.frontend.loop_space import LoopSpace
from quadrants.frontend.sparse_access import FieldRef, _hidden, _is_active_at, _load, _text
from quadrants.frontend.sparse_grads import activity_array


def sparse_iteration_space(tr, value, grouped):
    """The LoopSpace of a struct-for over an SNode, or over a field with an offset or sparse cells; else None."""
    offset = None
    if isinstance(value, StructField):  # a struct field loops like its first member
        value = tr.global_array(next(iter(value._leaves()))[1])
    if isinstance(value, SNode):
        node = value._field._place_node if value._kind == "place" else value
        guard_node = node if node._is_sparse else (node._activity_path() or [None])[-1]
    elif isinstance(value, FieldRef) and value.field._layout is not None:
        node, offset = value.field._place_node, value.offset
        guard_node = value.field._layout.innermost
    else:
        return None
    offset = offset or (0,) * len(node.dims)
    space = LoopSpace([(o, o + extent) for o, extent in zip(offset, node.shape)], grouped=grouped)
    if guard_node is not None:
        space.guard = lambda tr, index_names, kind: _skip_inactive(tr, node, guard_node, space, index_names, kind)
        if guard_node._kind == "pointer" and not tr.config.is_cuda:
            space.blocked = lambda tr, loop, targets, loop_name: _blocked_loop(
                tr, loop, targets, node, guard_node, offset, grouped, loop_name)
        elif guard_node._kind == "dynamic" and not tr.config.is_cuda:
            space.blocked = lambda tr, loop, targets, loop_name: _listed_loop(
                tr, loop, targets, node, guard_node, offset, grouped, loop_name)
    return space


_MIN_LISTS = 64  # the fewest lists for which a struct-for runs parallel over lists rather than positions


def _listed_loop(tr, loop, targets, node, snode, offset, grouped, loop_name):
    """A struct-for over a field placed in dynamic `snode`, on the CPU: a parallel_for over the lists (the
    parent's cells) with a serial loop over each list's [0, length), so the loop costs the entries appended,
    not the capacity (a million-entry list per cell is a common layout). An inactive ancestor has emptied the
    list, so the length alone decides. Returns False to leave the loop to the element-wise form (serialized
    loops, fewer than _MIN_LISTS lists, a list axis its parent also splits, a field in finer cells than the
    lists')."""
    parent, axis = snode._parent, snode._axes[0]
    direct = (all(node._axis_extent[a] == parent._axis_extent[a] for a in parent.dims)
              and node._axis_extent[axis] == snode._axis_extent[axis]
              and all(a in parent.dims or a == axis for a in node.dims))
    lists = 1
    for a in parent.dims:
        lists *= parent._axis_extent[a]
    # Parallel only over the lists: with few of them (a list at the root holding every particle) the
    # element-wise form, parallel over every position, keeps the threads busy instead.
    if (tr.pending_loop_config or (False, 0))[0] or axis in parent.dims or not direct or lists < _MIN_LISTS:
        return False
    block_dim = (tr.pending_loop_config or (False, 0))[1]
    tr.pending_loop_config = None
    loc = tr.builder.loc
    cells = [tr.names.fresh("_qd_cell") for _ in parent.dims]
    position = tr.names.fresh("_qd_pos")
    flat = LoopSpace([(o, o + extent) for o, extent in zip(offset, node.shape)], grouped=grouped)
    index_names = tr.index_names(targets, list(offset), flat)
    decls = [Stmt(f"decl {name} (var {position if a == axis else cells[parent.dims.index(a)]})")
             for name, a in zip(index_names, node.dims)]
    random_scope = tr.open_random_scope(index_names)
    body = decls + tr.close_random_scope(random_scope, tr.loop_body(loop, targets, index_names, list(offset), flat,
                                                                    "parallel"))
    lengths = _hidden(tr, activity_array(tr, snode, "_lengths"), "dynamic_length")
    length = _load(tr, lengths, [Expr(f"(var {c})") for c in cells])
    listed = Stmt(f"for {position} (const int 0) {_text(tr, length)}")
    listed.blocks = [body]
    extents = " ".join(f"(const int {parent._axis_extent[a]})" for a in parent.dims)
    tr.builder.emit(f"parallel_for ({' '.join(cells)}) ({extents}) (config (block_dim {block_dim}) (serialize 0)"
                    f"{name_clause(loop_name)})", [[listed]], loc=loc)
    return True


def _blocked_loop(tr, loop, targets, node, snode, offset, grouped, loop_name):
    """A struct-for over `node` whose activity a pointer `snode` decides, on the CPU: a parallel_for over
    the pointer's cells that skips inactive ones at once, with serial loops over each active cell's
    block (a `continue` in the body goes on to the block's next element). Returns False to leave the
    loop to the element-wise form (serialized loops, blocks of one element)."""
    ratios = {a: node._axis_extent[a] // snode._axis_extent[a] for a in snode.dims}
    if (tr.pending_loop_config or (False, 0))[0] or all(r == 1 for r in ratios.values()):
        return False
    block_dim = (tr.pending_loop_config or (False, 0))[1]
    tr.pending_loop_config = None
    loc = tr.builder.loc
    cells = [tr.names.fresh("_qd_cell") for _ in snode.dims]
    # Names and binds the element indices (from its rank and grouping: nothing reads its bounds); it has no
    # per-element guard, since the block's activity is checked once, below.
    flat = LoopSpace([(o, o + extent) for o, extent in zip(offset, node.shape)], grouped=grouped)
    index_names = tr.index_names(targets, list(offset), flat)
    fine, decls = [], []
    for name, axis in zip(index_names, node.dims):
        count = ratios.get(axis, node._axis_extent[axis])
        inner = tr.names.fresh("_qd_in") if count > 1 else None
        if inner is not None:
            fine.append(Stmt(f"for {inner} (const int 0) (const int {count})"))
        value = Expr(f"(var {inner})") if inner is not None else 0
        if axis in ratios:
            value = tr.ops.bin("add", tr.ops.bin("mul", Expr(f"(var {cells[snode.dims.index(axis)]})"), count), value)
        decls.append(Stmt(f"decl {name} {_text(tr, value)}"))
    random_scope = tr.open_random_scope(index_names)
    body = decls + tr.close_random_scope(random_scope, tr.loop_body(loop, targets, index_names, list(offset), flat,
                                                                    "parallel"))
    for stmt in reversed(fine):
        stmt.blocks = [body]
        body = [stmt]
    tr.builder.open()
    active = _is_active_at(tr, snode, snode, [Expr(f"(var {c})") for c in cells])
    tr.builder.emit(f"if (un not {_text(tr, active)})", [[Stmt("continue")], []])
    block = tr.builder.close() + body
    extents = " ".join(f"(const int {snode._axis_extent[a]})" for a in snode.dims)
    tr.builder.emit(f"parallel_for ({' '.join(cells)}) ({extents}) (config (block_dim {block_dim}) (serialize 0)"
                    f"{name_clause(loop_name)})", [block], loc=loc)
    return True


def _skip_inactive(tr, node, guard_node, space, index_names, kind):
    """The first statement of a struct-for body over a sparse node: continue when the cell is inactive."""
    raw = []
    for name, (begin, _) in zip(index_names, space.bounds):
        index = Expr(f"(var {name})")
        raw.append(tr.ops.bin("sub", index, begin) if kind == "serial" and begin != 0 else index)
    tr.builder.emit(f"if (un not {_text(tr, _is_active_at(tr, node, guard_node, raw))})", [[Stmt("continue")], []])
