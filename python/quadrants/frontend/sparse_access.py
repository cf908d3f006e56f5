# python/quadrants/frontend/sparse_access.py: field layouts in kernels: offsets, activation, struct-fors, SNode ops.
#
# The lowering of snode.py's layout, done while translating, so the IR and every pass see plain arrays:
# - a field is an array param (a FieldRef); its offset is subtracted from every index;
# - a store to (or atomic on) an element of a sparse field first activates the cells above it: a
#   byte per pointer/bitmasked cell, set when 0; a dynamic list's length raised to cover the element;
# - struct-fors over sparse fields and SNodes are in sparse_loops.py;
# - qd.activate/deactivate/is_active/length/append read and write the hidden arrays (qd.rescale_index, which
#   only computes an index, is in rescale_index.py); deactivation zeroes the cell's data, so reads never
#   need to check activity;
# - a field under a pooled pointer (field_layout.py) is indexed [slot, position in the cell's block],
#   the slot read from the pointer's slot word; activating a cell hands it a chunk (see _activate_pooled).
from quadrants.data.field import Field, NoStorage
from quadrants.data.field_layout import INACTIVE, LOCK, SLOT_MASK
from quadrants.data.snode import SNode
from quadrants.data.struct_field import StructField
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.field_methods import fill
from quadrants.frontend.funcs import BoundFunc
from quadrants.frontend.ir_builder import Expr, Stmt
from quadrants.frontend.sparse_grads import activates_on_access, activity_array, refuse, stores_activate
from quadrants.frontend.struct_values import StructValue, is_struct
from quadrants.frontend.values import ArrayRef, VectorValue
from quadrants.frontend.vector_ops import describe


class FieldRef(ArrayRef):
    """A field used by a kernel: an ArrayRef that knows its field (offsets, SNode, activity)."""

    __slots__ = ("field",)

    @property
    def offset(self):
        layout = self.field._layout
        return layout.offset if layout is not None else None

    @property
    def activity(self):
        layout = self.field._layout
        return layout.activity if layout is not None else None

    @property
    def pool(self):
        layout = self.field._layout
        return layout.pool if layout is not None else None

    @property
    def storage_ndim(self):
        """The dims of the array the kernel takes: a pooled field's has the chunk slot first."""
        return self.ndim + (self.pool is not None)


def kernel_ref(tr, container, name, label):
    """The ArrayRef of a container used as a global (translator.global_array); fields get a FieldRef."""
    if not isinstance(container, Field):
        return ArrayRef(name, container.dtype.name, len(container.shape), container._element_shape,
                        static_shape=tuple(container.shape), label=label)
    if isinstance(container._array, NoStorage):
        raise tr.fail(container._array.message, kind="type")
    if container._place_node is not None:
        container._place_node._tree.used = True
    ref = FieldRef(name, container.dtype.name, len(container.shape), container._element_shape,
                   static_shape=tuple(container.shape), label=label)
    ref.field = container
    return ref


def _hidden(tr, hidden, py_name):
    return tr.global_array(hidden, py_name)


def _text(tr, value):
    return tr.ops.text(value)


def _div(tr, value, ratio):
    return value if ratio == 1 else tr.ops.bin("floordiv", value, ratio)


def _load(tr, ref, cell):
    return Expr(f"(load {ref.name} ({' '.join(_text(tr, c) for c in cell)}) ())")


def _where(ref, cell_texts):
    return f"{ref.name} ({' '.join(cell_texts)}) ()"


# ---- indices of field accesses ------------------------------------------------------------------------
def shift_indices(tr, ref, parts):
    """The array indices of field element `parts` (exprs.array_indices): the offset subtracted, and for a
    pooled field the chunk slot and the position in the chunk. A pooled store's raw index is kept for
    activate_for_store, which follows in stmts.array_target."""
    offset = ref.offset
    if offset:
        parts = [part if shift == 0 else tr.ops.bin("sub", part, shift) for part, shift in zip(parts, offset)]
    if activates_on_access(tr, ref):  # an autodiff prepass activates what the adjoint adds into (sparse_grads.py)
        parts = [tr.materialize(p) if isinstance(p, Expr) else p for p in parts]
        _activate_cells(tr, ref, parts)
    if ref.pool is None:
        return parts
    raw = [tr.materialize(p) if isinstance(p, Expr) else p for p in parts]
    indices = storage_indices(tr, ref, raw)
    tr._qd_pool_raw = (tuple(_text(tr, i) for i in indices), raw)
    return indices


def storage_indices(tr, ref, raw):
    """[slot, block position...] of the element at raw index `raw` of a pooled field."""
    node, pool = ref.field._place_node, ref.pool
    slots = _hidden(tr, pool._slots, "pointer_cells")
    slot = tr.ops.bin("bit_and", _load(tr, slots, cells_of(tr, node, pool, raw)), SLOT_MASK)
    inner = []
    for r, axis in zip(raw, node.dims):
        if axis not in pool.dims:  # the pointer does not split this axis: the block holds all of it
            inner.append(r)
            continue
        ratio = node._axis_extent[axis] // pool._axis_extent[axis]
        inner.append(tr.ops.bin("mod", r, ratio) if ratio != 1 else 0)
    return [slot] + inner


def cells_of(tr, node, snode, raw):
    """The cell of ancestor `snode` holding the element at raw index `raw` of `node` (a list of values)."""
    return [_div(tr, raw[node.dims.index(a)], node._axis_extent[a] // snode._axis_extent[a]) for a in snode.dims]


def activate_for_store(tr, ref, index_texts):
    """Before a store to field element `index_texts`: activate every sparse cell above it, except those of nodes
    named by qd.no_activate(), whose activity conditions it returns (no_activate.py)."""
    if ref.pool is not None:
        texts, raw = getattr(tr, "_qd_pool_raw", ((), None))
        assert texts == tuple(index_texts), "activate_for_store(): not called right after a pooled array_indices"
    else:
        raw = [Expr(text) for text in index_texts]
    if not stores_activate(tr):  # an adjoint pass stores into cells its prepass activated (sparse_grads.py)
        return []
    return _activate_cells(tr, ref, raw)


def _activate_cells(tr, ref, raw):
    node, skipped = ref.field._place_node, []
    for snode in ref.activity:
        if snode in tr.no_activate_snodes:
            skipped.append(_is_active_at(tr, node, snode, raw))
            continue
        tr.activated_snodes.add(snode)
        if snode._kind == "dynamic":
            position = raw[node.dims.index(snode._axes[0])]
            _raise_length(tr, snode, cells_of(tr, node, snode._parent, raw), tr.ops.bin("add", position, 1))
        else:
            _set_active(tr, snode, cells_of(tr, node, snode, raw))
    return skipped


def _set_active(tr, snode, cell):
    if snode._pooled:
        _activate_pooled(tr, snode, cell)
        return
    mask = _hidden(tr, snode._mask, f"{snode._kind}_cells")
    where = _where(mask, [_text(tr, c) for c in cell])
    store = Stmt(f"store {where} (const int 1)")
    tr.builder.emit(f"if (bin eq (load {where}) (const int 0))", [[store], []])


def _activate_pooled(tr, snode, cell):
    """Activates a cell of a pooled pointer (slot words: field_layout.py). When the word says the cell
    is not active, the thread sets LOCK with an atomic or; the old word decides what it does:
    0: it allocates (the next chunk; the pool has one per cell, so it never runs out) and publishes the
    slot; a slot, active or deactivated: it clears LOCK and INACTIVE, keeping the chunk; LOCK: another
    thread is allocating, so it waits until that thread publishes (an atomic read per try)."""
    slots = _hidden(tr, snode._slots, "pointer_cells")
    where = _where(slots, [_text(tr, c) for c in cell])
    word, old, chunk = (tr.names.fresh(n) for n in ("_qd_slot_word", "_qd_old_word", "_qd_chunk"))
    next_slot = _hidden(tr, snode._next, "pointer_next_chunk")
    allocate = [Stmt(f"decl {chunk} i32 (atomic add {next_slot.name} ((const int 0)) () (const i32 1))"),
                Stmt(f"eval (atomic xor {where} (bin bit_xor (const i32 {LOCK}) (var {chunk})))")]
    keep = [Stmt(f"eval (atomic and {where} (const i32 {SLOT_MASK}))")]
    wait = [Stmt(f"while (bin ne (bin bit_and (atomic or {where} (const i32 0)) (const i32 {LOCK})) (const i32 0))",
                 [[]])]
    claim = [
        Stmt(f"decl {old} i32 (atomic or {where} (const i32 {LOCK}))"),
        Stmt(f"if (bin eq (var {old}) (const i32 0))", [allocate, [
            Stmt(f"if (bin eq (bin bit_and (var {old}) (const i32 {LOCK})) (const i32 0))", [keep, wait])]]),
    ]
    tr.builder.emit(f"decl {word} i32 (load {where})")
    tr.builder.emit(f"if (bin or (bin eq (var {word}) (const i32 0)) (bin ge (var {word}) (const i32 {INACTIVE})))",
                    [claim, []])


def _raise_length(tr, snode, parent_cell, needed):
    lengths = _hidden(tr, snode._lengths, "dynamic_length")
    where = _where(lengths, [_text(tr, c) for c in parent_cell])
    needed = _text(tr, tr.ops.cast("i32", needed))
    grow = Stmt(f"eval (atomic max {where} {needed})")
    tr.builder.emit(f"if (bin lt (load {where}) {needed})", [[grow], []])


def _activate_with_ancestors(tr, snode, cell):
    """qd.activate: the cell of `snode` and the cells of the sparse nodes above it."""
    for ancestor in snode._activity_path():
        if ancestor._kind == "dynamic":
            raise tr.fail("qd.activate() cannot activate cells under a dynamic SNode; append to the list instead",
                          kind="type")
        _set_active(tr, ancestor, cells_of(tr, snode, ancestor, cell))


def _is_active_at(tr, node, snode, raw):
    if snode._kind == "dynamic":
        lengths = _hidden(tr, activity_array(tr, snode, "_lengths"), "dynamic_length")
        position = _div(tr, raw[node.dims.index(snode._axes[0])],
                        node._axis_extent[snode._axes[0]] // snode._axis_extent[snode._axes[0]])
        return tr.ops.bin("lt", position, _load(tr, lengths, cells_of(tr, node, snode._parent, raw)))
    if snode._pooled:
        word = tr.materialize(Expr(_load(tr, _hidden(tr, activity_array(tr, snode, "_slots"), "pointer_cells"),
                                         cells_of(tr, node, snode, raw)).text, side_effect=True))
        return tr.ops.bin("and", tr.ops.bin("gt", word, 0), tr.ops.bin("lt", word, INACTIVE))
    mask = _hidden(tr, activity_array(tr, snode, "_mask"), f"{snode._kind}_cells")
    return tr.ops.bin("ne", _load(tr, mask, cells_of(tr, node, snode, raw)), 0)


# ---- qd.activate / deactivate / is_active / length / append ------------------------------------------
def _snode_argument(tr, node, what):
    if isinstance(node, FieldRef):
        node = node.field._place_node._parent
    if not isinstance(node, SNode):
        raise tr.fail(f"qd.{what}() needs an SNode (such as x.parent()) as its first argument, but got "
                      f"{describe(node)}", kind="type")
    return node


def _parts(tr, index, what):
    """An index argument (a number, a list or tuple, a vector, or None for []) as a list of scalars."""
    if isinstance(index, VectorValue) and not index.is_matrix:
        parts = list(index.entries)
    elif isinstance(index, (list, tuple)):
        parts = list(index)
    elif index is None:
        parts = []
    else:
        parts = [index]
    return [tr.scalar(p, f"an index of qd.{what}()") for p in parts]


def _index_parts(tr, index, count, what):
    parts = _parts(tr, index, what)
    if len(parts) != count:
        raise tr.fail(f"qd.{what}() on this SNode takes {count} index(es), but got {len(parts)}", kind="type")
    return parts


def _list_cell(tr, snode, index, what):
    """The parent cell of dynamic `snode` named by `index`; a full index of the node drops the list's axis."""
    if snode._kind != "dynamic":
        raise tr.fail(f"qd.{what}() works on dynamic SNodes, but got a {snode._kind} SNode", kind="type")
    parts = _parts(tr, index, what)
    if len(parts) == len(snode.dims):
        drop = snode.dims.index(snode._axes[0])
        return parts[:drop] + parts[drop + 1:]
    if len(parts) != len(snode._parent.dims):
        raise tr.fail(f"qd.{what}() on this dynamic SNode takes {len(snode._parent.dims)} index(es) (the cell that "
                      f"holds the list), but got {len(parts)}", kind="type")
    return parts


def _sparse_node(tr, snode, what):
    if snode._kind not in ("pointer", "bitmasked"):
        raise tr.fail(f"qd.{what}() works on pointer and bitmasked SNodes, but got a {snode._kind} SNode",
                      kind="type")


def _activate(ops, node, index):
    tr = ops.tr
    snode = _snode_argument(tr, node, "activate")
    _sparse_node(tr, snode, "activate")
    if stores_activate(tr):
        _activate_with_ancestors(tr, snode, _index_parts(tr, index, len(snode.dims), "activate"))


def _is_active(ops, node, index):
    tr = ops.tr
    snode = _snode_argument(tr, node, "is_active")
    _sparse_node(tr, snode, "is_active")
    cell = _index_parts(tr, index, len(snode.dims), "is_active")
    return _is_active_at(tr, snode, snode, cell)


def _length(ops, node, index=None):
    tr = ops.tr
    snode = _snode_argument(tr, node, "length")
    cell = _list_cell(tr, snode, index, "length")
    return _load(tr, _hidden(tr, snode._lengths, "dynamic_length"), cell)


def _deactivate(ops, node, index=None):
    tr = ops.tr
    snode = _snode_argument(tr, node, "deactivate")
    refuse(tr, "qd.deactivate()")
    limits = {}
    if snode._kind == "dynamic":
        owner, cell = snode._parent, _list_cell(tr, snode, index, "deactivate")
        where = _where(_hidden(tr, snode._lengths, "dynamic_length"), [_text(tr, c) for c in cell])
        old = tr.names.fresh("_qd_old_length")
        tr.builder.emit(f"decl {old} i32 (load {where})")
        tr.builder.emit(f"store {where} (const int 0)")
        limits[snode._axes[0]] = f"(var {old})"  # entries past the length are zero already: leave their pages
    else:
        _sparse_node(tr, snode, "deactivate")
        owner, cell = snode, _index_parts(tr, index, len(snode.dims), "deactivate")
    cell = [tr.materialize(c) if isinstance(c, Expr) else c for c in cell]
    if snode._pooled:  # the cell keeps its chunk (zeroed below) for its next activation
        where = _where(_hidden(tr, snode._slots, "pointer_cells"), [_text(tr, c) for c in cell])
        tr.builder.emit(f"if (bin ne (load {where}) (const i32 0))",
                        [[Stmt(f"eval (atomic or {where} (const i32 {INACTIVE}))")], []])
    elif snode._kind != "dynamic":
        mask = _hidden(tr, snode._mask, f"{snode._kind}_cells")
        tr.builder.emit(f"store {_where(mask, [_text(tr, c) for c in cell])} (const int 0)")
    for below in list(snode._subtree())[1:]:
        if below._mask is not None:
            _zero_block(tr, _hidden(tr, below._mask, f"{below._kind}_cells"), below, owner, cell, limits)
        elif below._lengths is not None:
            _zero_block(tr, _hidden(tr, below._lengths, "dynamic_length"), below._parent, owner, cell, limits)
        elif below._kind == "place" and getattr(below._field, "_quant", None) is None:  # a quantized field's
            _zero_block(tr, tr.global_array(below._field), below, owner, cell, limits)  # word is zeroed as a field


def _zero_block(tr, ref, node, owner, cell, limits):
    """Stores 0 into every element of array `ref` (indexed like `node`) that lies in `owner`'s `cell`;
    `limits` bounds some axes by an IR value (a list's length) instead of their extent."""
    indices, loops = [], []
    for axis in node.dims:
        count = node._axis_extent[axis] // owner._axis_extent.get(axis, 1)
        if axis in limits:
            var = tr.names.fresh("_qd_z")
            loops.append((var, limits[axis]))
            indices.append(Expr(f"(var {var})"))
            continue
        if axis in owner.dims:
            start = tr.ops.bin("mul", cell[owner.dims.index(axis)], count)
        else:
            start, count = 0, node._axis_extent[axis]
        if count == 1:
            indices.append(start)
            continue
        var = tr.names.fresh("_qd_z")
        loops.append((var, f"(const int {count})"))
        indices.append(tr.ops.bin("add", start, Expr(f"(var {var})")) if start != 0 else Expr(f"(var {var})"))
    if getattr(ref, "pool", None) is not None:
        indices = storage_indices(tr, ref, indices)
    texts = " ".join(_text(tr, i) for i in indices)
    element_indices = _element_indices(ref.element_shape)
    block = [Stmt(f"store {ref.name} ({texts}) ({' '.join(map(str, e))}) (const int 0)") for e in element_indices]
    for var, end in reversed(loops):
        block = [Stmt(f"for {var} (const int 0) {end}", [block])]
    for stmt in block:
        tr.builder.append(stmt)


def _element_indices(element_shape):
    if not element_shape:
        return [()]
    if len(element_shape) == 1:
        return [(i,) for i in range(element_shape[0])]
    return [(i, j) for i in range(element_shape[0]) for j in range(element_shape[1])]


def _append(ops, node, index, value):
    tr = ops.tr
    snode = _snode_argument(tr, node, "append")
    return append_to_list(tr, snode, _list_cell(tr, snode, index, "append"), value)


def append_to_list(tr, snode, cell, value):
    """qd.append: the list's old length; the value is stored at it unless the list is full."""
    refuse(tr, "qd.append()")
    fields = snode._list_fields()
    values = _append_values(tr, value, len(fields))
    cell = [tr.materialize(c) if isinstance(c, Expr) else c for c in cell]
    lengths = _hidden(tr, snode._lengths, "dynamic_length")
    where = _where(lengths, [_text(tr, c) for c in cell])
    old = tr.names.fresh("_qd_old_length")
    tr.builder.emit(f"decl {old} i32 (atomic add {where} (const i32 1))")
    capacity = snode._extents[0]
    tr.builder.open()
    dyn_dim = snode.dims.index(snode._axes[0])
    for field, item in zip(fields, values):
        if field._place_node.dims != snode.dims:
            raise tr.fail("qd.append() needs the list's fields placed directly in the dynamic SNode", kind="type")
        ref = tr.global_array(field)
        index = cell[:dyn_dim] + [Expr(f"(var {old})")] + cell[dyn_dim:]
        if ref.offset:  # array_target subtracts the offset again
            index = [tr.ops.bin("add", part, shift) for part, shift in zip(index, ref.offset)]
        tr.store(tr.array_target(ref, tuple(index)), item)
    then_block = tr.builder.close()
    full = [Stmt(f"eval (atomic min {where} (const i32 {capacity}))")]
    tr.builder.emit(f"if (bin lt (var {old}) (const i32 {capacity}))", [then_block, full])
    return Expr(f"(var {old})")


def _append_values(tr, value, count):
    if is_struct(value):
        values = _struct_leaves(tr.as_struct_value(value))
    else:
        values = [value]
    if len(values) != count:
        raise tr.fail(f"qd.append(): the list holds {count} field(s), but got {describe(value)}", kind="type")
    return values


def _struct_leaves(value):
    leaves = []
    for member in value.members.values():
        leaves.extend(_struct_leaves(member) if isinstance(member, StructValue) else [member])
    return leaves


_SNODE_ARG = ("snode is an SNode or a field (meaning the SNode the field is placed in, x.parent()); index is a "
              "number, a list or tuple, or a vector")
_CELL = ("with one index per dimension of the SNode, counted in its own cells (0 to 3 for the pointer of "
         "qd.root.pointer(qd.i, 4).dense(qd.i, 8))")
_LIST_CELL = ("index names the cell that holds the list: one index per dimension of the SNode's parent, or a full "
              "index of the dynamic SNode, whose list axis is then ignored")
_KERNEL_ONLY = "Inside kernels only: in Python scope it raises RuntimeError."

activate = Builtin("activate", kernel_only("activate"), "composite", impl=_activate, doc=(
    f"activate(snode, index)\n\nActivates the cell index of a pointer or bitmasked SNode, and the cells above it. "
    f"{_SNODE_ARG}, {_CELL}. {_KERNEL_ONLY}"))
deactivate = Builtin("deactivate", kernel_only("deactivate"), "composite", impl=_deactivate, doc=(
    f"deactivate(snode, index)\n\nDeactivates the cell index of a pointer or bitmasked SNode and sets every "
    f"value under it to zero; on a dynamic SNode, empties a list (length 0, entries zeroed). {_SNODE_ARG}; "
    f"for pointer and bitmasked SNodes, {_CELL}; for dynamic ones, {_LIST_CELL}. {_KERNEL_ONLY}"))
is_active = Builtin("is_active", kernel_only("is_active"), "composite", impl=_is_active, doc=(
    f"is_active(snode, index)\n\n1 if the cell index of a pointer or bitmasked SNode is active, else 0 (an i32). "
    f"{_SNODE_ARG}, {_CELL}. {_KERNEL_ONLY}"))
length = Builtin("length", kernel_only("length"), "composite", impl=_length, doc=(
    f"length(snode, index)\n\nThe number of entries (an i32) in a list of a dynamic SNode. {_SNODE_ARG}; "
    f"{_LIST_CELL}. {_KERNEL_ONLY}"))
append = Builtin("append", kernel_only("append"), "composite", impl=_append, doc=(
    f"append(snode, index, value)\n\nAppends value to a list of a dynamic SNode, atomically, and returns the "
    f"list's old length (the new entry's position). When the list is full the value is dropped and the length "
    f"stays at the capacity. value has one entry per field placed in the SNode (a struct for several). "
    f"{_SNODE_ARG}; {_LIST_CELL}. {_KERNEL_ONLY}"))


# ---- x.parent(), x[i].append(v), y.length() ... ----------------------------------------------------------
class DynamicList:
    """`x[i]` of a field under a dynamic SNode, indexed without the list's axis: append/length/deactivate."""

    def __init__(self, snode, cell):
        self.snode = snode
        self.cell = cell

    def method(self, name):
        snode, cell = self.snode, self.cell
        impls = {
            "append": lambda ops, value: append_to_list(ops.tr, snode, cell, value),
            "length": lambda ops: _load(ops.tr, _hidden(ops.tr, snode._lengths, "dynamic_length"), cell),
            "deactivate": lambda ops: _deactivate(ops, snode, cell),
        }
        if name not in impls:
            return None
        return Builtin(name, kernel_only(name), "composite", impl=impls[name])


def _dynamic_ancestor(ref):
    layout = ref.field._layout
    for snode in reversed(layout.activity or ()) if layout is not None else ():
        if snode._kind == "dynamic":
            return snode
    return None


def field_subscript(tr, ref, index):
    """`x[i]` of a field with one index fewer than its dims, over a dynamic list: a DynamicList; else None."""
    if isinstance(ref, StructField):  # a struct field's lists are its members'
        ref = tr.global_array(next(iter(ref._leaves()))[1])
    snode = _dynamic_ancestor(ref)
    if snode is None:
        return None
    if isinstance(index, VectorValue) and not index.is_matrix:
        parts = list(index.entries)
    elif isinstance(index, (tuple, list)):
        parts = list(index)
    else:
        parts = [] if index is None else [index]
    if len(parts) != len(snode._parent.dims) or len(parts) == ref.ndim:
        return None
    return DynamicList(snode, shift_indices(tr, ref, parts + [0])[:-1] if ref.offset else parts)


def field_attribute(tr, ref, attr):
    """`x.attr` of a field inside a kernel: append/length/deactivate of a 1-d list, fill(), else the Python
    attribute."""
    snode = _dynamic_ancestor(ref)
    if snode is not None and attr in ("append", "length", "deactivate") and not snode._parent.dims:
        return DynamicList(snode, []).method(attr)
    if attr == "fill":  # the field's own fill() would run once, while the kernel compiles

        return BoundFunc(fill, ref)
    # A float field has a gradient/dual, unplaced unless asked for or placed, which kernels cannot use; an integer
    # field has none.
    twin = getattr(ref.field, attr, None) if attr in ("grad", "dual") else None
    if attr in ("grad", "dual") and ref.field.dtype.numpy.kind == "f" and (twin is None or twin._place_node is None):
        kind, name = ("Gradient" if attr == "grad" else "Dual"), getattr(ref.field, "name", None) or ref.label
        raise tr.fail(f"{kind} {name}.{attr} has not been placed, check whether `needs_{attr}=True` is set for "
                      f"field '{name}'", hint=f"create the field with needs_{attr}=True.")
    try:
        return tr.capture(getattr(ref.field, attr))
    except AttributeError:
        raise tr.fail(f"field '{ref.label}' has no attribute '{attr}' inside kernels", kind="type") from None


def list_method(tr, value, attr):
    """`x[i].append` and friends (exprs.visit_Attribute), or None when `value` is no DynamicList."""
    if not isinstance(value, DynamicList):
        return None
    method = value.method(attr)
    if method is None:
        raise tr.fail(f"a dynamic list x[i] has the methods append(), length() and deactivate(), not '{attr}'",
                      kind="type")
    return method
