# python/quadrants/data/snode.py: SNodes, the layout tree of fields: qd.root, dense/pointer/bitmasked/dynamic, place.
#
# An SNode tree only describes where fields live; kernels never see it. A field's shape along an axis
# is the product of the extents of that axis on its path from the root (root.dense(qd.i, 4).dense(qd.i,
# 8) gives 32). The lowering (field_layout.py on the host, frontend/sparse_access.py in kernels) keeps:
# - one dense array per field, in the memory order of its dense path (field_order.py);
# - per pointer/bitmasked node a hidden activity array, one byte per cell of that node (snode.shape);
# - per dynamic node a hidden i32 length per cell of its parent.
# Data of inactive cells is always zero (writes activate, deactivation zeroes), so reads need no check.
# Storage exists once the tree is finalized: qd.root's tree is finalized as it grows (each node and
# field gets its storage when created or placed); a qd.FieldsBuilder's tree when finalize() is called.
import numbers

from quadrants.base import registry
from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data import shared_cells, snode_layout, zero_copy
from quadrants.data.container import ArrayContainer
from quadrants.data.grads import dual_twin, grad_twin
from quadrants.runtime import init as _runtime
from quadrants.types.enums import SNodeGradType

_KINDS_WITH_MASKS = ("pointer", "bitmasked")
# Upstream's quadrants_max_num_indices: a field's dims. Its array has as many more as its element has (the core's
# QD_MAX_NDIM, 14, leaves a matrix's two; runtime/_core's max_ndim), which the core checks when it is allocated.
MAX_AXES = 12


class Axis:
    """One index axis: qd.i is axis 0, qd.j axis 1, and so on."""

    __slots__ = ("value",)

    def __init__(self, value):
        if not isinstance(value, numbers.Integral) or not 0 <= value < MAX_AXES:
            raise ValueError(f"An axis is an int in [0, {MAX_AXES}), but got {value!r}.")
        self.value = int(value)

    def __eq__(self, other):
        return isinstance(other, Axis) and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"qd.{'ijkl'[self.value]}" if self.value < 4 else f"qd.axes({self.value})"


def axes(*values):
    """The axes with these numbers, for SNode builders: qd.axes(0, 1) is qd.ij."""
    return [Axis(v) for v in values]


i, j, k, l = axes(0), axes(1), axes(2), axes(3)  # noqa: E741 - upstream's names
ij, ik, il, jk, jl, kl = axes(0, 1), axes(0, 2), axes(0, 3), axes(1, 2), axes(1, 3), axes(2, 3)
ijk, ijl, ikl, jkl = axes(0, 1, 2), axes(0, 1, 3), axes(0, 2, 3), axes(1, 2, 3)
ijkl = axes(0, 1, 2, 3)


class _Tree:
    """The nodes and fields of one SNode tree; `eager` trees (qd.root's) get storage as they grow."""

    def __init__(self, eager):
        self.id = _next_tree_id()  # upstream's snode._snode_tree_id
        self.used = False  # a kernel used one of its fields: qd.root starts a new tree, as upstream does
        self.eager = eager
        self.finalized = eager
        self.destroyed = False
        self.nodes = []
        self.fields = []


class SNode:
    """A node of the layout tree: root, dense, pointer, bitmasked, dynamic, or place (one per field)."""

    def __init__(self, kind, parent, node_axes=(), extents=(), tree=None, chunk_size=None):
        self._kind = kind
        self._parent = parent
        self._axes = tuple(node_axes)  # axis numbers: qd.i is 0
        self._extents = tuple(extents)
        self._tree = tree if tree is not None else parent._tree
        self._children = []
        self._field = None  # the field of a place node
        self._mask = None  # pointer/bitmasked: u8 activity per cell
        self._lengths = None  # dynamic: i32 length per cell of the parent
        self._slots = None  # a pooled pointer: i32 chunk slot and state per cell (field_layout.py)
        self._next = None  # a pooled pointer: the next unused chunk slot (1-element i32)
        self._allocated_before = 0  # _num_dynamically_allocated when deactivate_all() last released the cells
        self.chunk_size = chunk_size
        self._axis_extent = dict(parent._axis_extent) if parent is not None else {}
        for axis, extent in zip(self._axes, self._extents):
            self._axis_extent[axis] = self._axis_extent.get(axis, 1) * extent
        self.dims = tuple(sorted(self._axis_extent))  # the axes of this node's indices, in order
        # The outermost pointer of a path allocates its cells' data on activation, from a pool whose
        # untouched pages the OS never maps: on the CPU only (CUDA memory is committed when allocated,
        # so a pool there would save nothing; it keeps the dense layout with an activity mask).
        self._pooled = (kind == "pointer" and not any(n._pooled for n in parent._path())
                        and not _runtime.config().is_cuda)
        self.ptr = SNodeHandle(self)  # upstream's C++ SNode handle, for its autodiff queries (an instance attribute)
        self._tree.nodes.append(self)
        if self._tree.eager:
            self._allocate()


    # ---- building -------------------------------------------------------------------------------
    def dense(self, axes, dimensions):
        """A child node of dense cells: `dimensions` cells along each of `axes`."""
        return self._child("dense", axes, dimensions)

    def pointer(self, axes, dimensions):
        """A child node whose cells are active or not; writes activate, qd.deactivate frees."""
        return self._child("pointer", axes, dimensions)

    def bitmasked(self, axes, dimensions):
        """A child node whose cells carry an activity bit; struct-for loops visit the active ones."""
        return self._child("bitmasked", axes, dimensions)

    def dynamic(self, axis, dimension, chunk_size=None):
        """A child list along one axis of at most `dimension` entries; qd.append adds to its end."""
        node_axes = _axis_list(axis, "dynamic()")
        if len(node_axes) != 1:
            raise QuadrantsRuntimeError(f"A dynamic SNode has exactly one axis, but got {len(node_axes)}.")
        if not isinstance(dimension, numbers.Integral) or isinstance(dimension, bool) or not 0 < dimension < 2**31:
            raise QuadrantsRuntimeError(f"dynamic(): the length must be a positive int below 2**31, but got "
                                        f"{dimension!r}.")
        if chunk_size is not None and (not isinstance(chunk_size, numbers.Integral) or chunk_size <= 0):
            raise QuadrantsRuntimeError(f"dynamic(): chunk_size must be a positive int, but got {chunk_size!r}.")
        axis = node_axes[0]
        for ancestor in self._path():
            if axis.value in ancestor._axes:
                raise QuadrantsRuntimeError(f"dynamic(): axis {axis!r} is already used above this node; a dynamic "
                                            "SNode must have an axis of its own (upstream: 'standalone "
                                            "dimensionality').")
        return self._child("dynamic", node_axes, [dimension], chunk_size=chunk_size or dimension)

    def _child(self, kind, node_axes, dimensions, chunk_size=None, allow_empty=False):
        self._check_open(f"{kind}()")
        if self._kind == "place":
            raise QuadrantsRuntimeError("A field's place node cannot have children.")
        node_axes = [a.value for a in _axis_list(node_axes, f"{kind}()")]
        extents = _extents(dimensions, len(node_axes), kind, allow_empty)
        if len(set(node_axes)) != len(node_axes):
            raise QuadrantsRuntimeError(f"{kind}(): an axis appears twice in {axes(*node_axes)}; give each axis once.")
        dynamic = next((n for n in self._path() if n._kind == "dynamic"), None)
        if dynamic is not None and dynamic._axes[0] in node_axes:
            raise QuadrantsRuntimeError(f"{kind}(): axis {Axis(dynamic._axes[0])!r} belongs to the dynamic SNode "
                                        "above; it cannot be subdivided further.")
        child = SNode(kind, self, node_axes, extents, chunk_size=chunk_size)
        self._children.append(child)
        return child

    def place(self, *fields, offset=None):
        """Places fields in this node: each gets one element per cell (shape: self.shape)."""
        self._check_open("place()")
        if self._kind == "quant_array":  # its one field's elements share the parent's words (data/bitpacked.py)
            return registry.get("place_in_quant_array")(self, fields)
        for item in fields:
            if hasattr(item, "_qd_place_in"):  # a qd.BitpackedFields (data/bitpacked.py)
                item._qd_place_in(self)
            elif isinstance(item, (list, tuple)):
                self.place(*item, offset=offset)
            elif hasattr(item, "_leaves") and hasattr(item, "field_dict"):  # a struct field: each member
                leaves = [leaf for _, leaf in item._leaves()]
                self.place(*leaves, offset=offset)
                _placed_struct(item, self.shape, leaves[0]._place_node)
            elif isinstance(item, ArrayContainer) and item._kind == "field":
                entry_fields = item._entry_fields()
                if entry_fields is not None:  # a vector/matrix field whose entries have dtypes of their own
                    self.place(*entry_fields, offset=offset)
                else:
                    self._place_field(item, offset)
            else:
                raise QuadrantsRuntimeError(f"place() takes fields, but got {type(item).__name__}.")
        return self

    def lazy_grad(self):
        """Gives every float field of this node's tree that has no gradient one, placed beside it (upstream's
        qd.root.lazy_grad()); fields made with needs_grad=True have theirs already."""
        self._check_open("lazy_grad()")
        self._lazy_twins("grad", grad_twin)

    def lazy_dual(self):
        """As lazy_grad(), for duals (forward mode)."""
        self._check_open("lazy_dual()")
        self._lazy_twins("dual", dual_twin)

    def quant_array(self, axes, dimensions, max_num_bits):
        """A child node whose cells are elements of one quantized field, packed `dimensions` to a word of
        `max_num_bits` bits per cell of this node (data/bitpacked.py)."""
        self._check_open("quant_array()")
        return registry.get("quant_array")(self, axes, dimensions, max_num_bits)

    def _lazy_twins(self, attr, twin):
        for field in list(self._tree.fields):
            existing = getattr(field, attr, None)
            if (existing is not None and existing._place_node is not None) or field._place_node is None:
                continue
            if getattr(field, "_grad_of", None) is not None or getattr(field, "_dual_of", None) is not None:
                continue
            name = f"{field.name}.{attr}" if field.name else None
            companion = existing or twin(field, lambda f=field, n=name: type(f)(f.dtype, None, f._element_shape,
                                                                                 _twin=True, name=n))
            if companion is None:
                continue
            setattr(field, attr, companion)
            offset = field._layout.offset if field._layout is not None else None
            field._place_node._parent._place_field(companion, offset)
            companion._placed_with_primal = True

    def _place_field(self, field, offset):
        if getattr(field, "_placed_with_primal", False) and field._place_node._parent is self:
            return  # a gradient placed beside its field already: place(x, x.grad) as upstream writes it
        if field._place_node is not None:
            raise QuadrantsRuntimeError(f"{field._describe()} is already placed (shape {field.shape}); a field "
                                        "can be placed once.")
        if getattr(field, "_quant_type", None) is not None:
            raise QuadrantsRuntimeError(f"{field._describe()} is of the quantized type {field._quant_type!r}, which "
                                        "has no array of its own: place it through qd.BitpackedFields "
                                        "(bitpack.place(x); node.place(bitpack)) or node.quant_array(...).place(x).")
        offset = _offset_tuple(offset, len(self.dims))
        node = SNode("place", self)
        node._field = field
        self._children.append(node)
        self._tree.fields.append(field)
        field._place(node, offset)

    def _check_open(self, what):
        if self._tree.destroyed:
            raise QuadrantsRuntimeError(f"{what}: this SNode tree was destroyed.")
        if not self._tree.eager and self._tree.finalized:
            raise QuadrantsRuntimeError(f"{what}: the FieldsBuilder of this SNode is finalized; no more nodes or "
                                        "fields can be added to it.")

    def _allocate(self):
        """Storage of the node's hidden arrays (fields get theirs in Field._place / _allocate)."""
        hidden_field = registry.get("hidden_field")  # field.py: fields sit above the nodes they are placed in
        if self._pooled and self._slots is None:
            self._slots = hidden_field("i32", self.shape)
            self._next = hidden_field("i32", (1,))
            self._next._array.set([0], 1)  # slot 0 is the chunk of zeros that inactive cells read
        elif self._kind in _KINDS_WITH_MASKS and not self._pooled and self._mask is None:
            self._mask = hidden_field("u8", self.shape)
        elif self._kind == "dynamic" and self._lengths is None:
            self._lengths = hidden_field("i32", self._parent.shape)
        elif self._kind == "place" and self._field is not None:
            self._field._allocate()

    # ---- inspection -----------------------------------------------------------------------------
    @property
    def shape(self):
        """Cells along each axis of this node's indices, counted from the root."""
        return tuple(self._axis_extent[a] for a in self.dims)

    def _physical_index_position(self):
        """Upstream's map from each index position of this node (a field's i-th index) to its axis (qd.i is 0)."""
        return dict(enumerate(self.dims))

    def parent(self, n=1):
        """The n-th ancestor: qd.root for the nodes at the top of qd.root's tree, None above the root."""
        node = self
        for _ in range(n):
            node = node._parent
            if node is None:
                return None
        return root if node._kind == "root" and node._tree.eager else node

    def _path(self):
        """The nodes from the root down to this one."""
        path = []
        node = self
        while node is not None:
            path.append(node)
            node = node._parent
        return path[::-1]

    def _path_from_root(self):
        """The nodes from the root down to this one, qd.root standing for the root of its trees (upstream's)."""
        return [root if n._kind == "root" and n._tree.eager else n for n in self._path()]

    def _get_children(self):
        return list(self._children)

    @property
    def _snode(self):
        return self

    @property
    def _name(self):
        """A place node's field name; other nodes are named by their kind."""
        return self._field._name if self._field is not None else self._kind

    @property
    def _num_dynamically_allocated(self):
        """Cells given memory so far: chunks handed out by a pooled pointer (the CPU), active cells of a
        pointer with dense storage (CUDA, or nested in another pointer); 0 for other nodes. As upstream's
        allocator count, deactivation does not lower it: upstream keeps a deactivated cell's memory for reuse, so
        the count is the most cells held at once, over deactivate_all() calls (a qd.deactivate() of single cells
        of a mask-backed pointer is not seen: their count drops back until they are active again)."""
        self._check_usable()
        return max(self._allocated_before, self._allocated_now())

    def _allocated_now(self):
        if self._pooled:
            return self._next._array.get([0]) - 1
        if self._kind == "pointer":
            return int((self._mask.to_numpy() != 0).sum())
        return 0

    @property
    def _cell_size_bytes(self):
        """Bytes of one cell of this node in upstream's layout (snode_layout.py: dense, place and quantized nodes)."""
        return snode_layout.cell_size_bytes(self)

    @property
    def _offset_bytes_in_parent_cell(self):
        """Where this node starts in a cell of its parent, in upstream's layout (snode_layout.py)."""
        return snode_layout.offset_bytes_in_parent_cell(self)

    @property
    def _snode_tree_id(self):
        return self._tree.id

    @property
    def _dtype(self):
        return self._field.dtype if self._field is not None else None

    def _subtree(self):
        yield self
        for child in self._children:
            yield from child._subtree()

    def _fields_below(self):
        """Every field placed in this node's subtree."""
        return [n._field for n in self._subtree() if n._kind == "place" and n._field is not None]

    def _list_fields(self):
        """The fields qd.append writes one value each into: those of the subtree but gradients and duals, which
        sit beside their fields (upstream counts them too and fails; here they keep their zeros), and the words of
        quantized fields (bitpacked.py), which their fields write."""
        return [f for f in self._fields_below() if getattr(f, "_grad_of", None) is None
                and getattr(f, "_dual_of", None) is None and not getattr(f, "_quant_words", False)]

    @property
    def _is_sparse(self):
        """Whether cells of this node can be inactive (pointer, bitmasked, dynamic)."""
        return self._kind in ("pointer", "bitmasked", "dynamic")

    def _activity_path(self):
        """The sparse nodes (pointer, bitmasked, dynamic) from the root down to this node."""
        return [n for n in self._path() if n._is_sparse]

    def deactivate_all(self):
        """Deactivates every cell of every sparse node in this subtree; their fields read 0 again."""
        self._check_usable()
        cleared = set()
        nodes = list(self._subtree())
        for node in nodes:  # data first: a pool's fields zero the chunks its slots count
            if node._is_sparse:
                for field in node._fields_below():
                    if id(field) not in cleared:
                        cleared.add(id(field))
                        field._zero_storage()
        for node in nodes:
            if node._kind == "pointer":  # the cells' memory stays allocated upstream, for reuse
                node._allocated_before = max(node._allocated_before, node._allocated_now())
            for hidden in (node._mask, node._lengths, node._slots):
                if hidden is not None:
                    hidden.fill(0)
            if node._next is not None:
                node._next._array.set([0], 1)

    def _check_usable(self):
        if self._tree.destroyed:
            raise QuadrantsRuntimeError("This SNode tree was destroyed.")
        if not self._tree.finalized:
            raise QuadrantsRuntimeError("This SNode's FieldsBuilder is not finalized yet; call fb.finalize() first.")

    def __repr__(self):
        return f"<qd.SNode of type {self._kind}>"

    def __str__(self):
        if self._parent is None:
            return "qd.root" if self._tree.eager else "root"
        return f"{self._parent} => {self._kind} {list(self.shape)}"


def _placed_struct(struct_field, shape, place_node):
    """A struct field (and its struct members) after its members were placed: their shape and SNode."""
    struct_field._shape = shape
    struct_field._place_node = place_node  # its first member's: x.snode, x.parent() work as for any field
    for member in struct_field.field_dict.values():
        if hasattr(member, "field_dict"):
            _placed_struct(member, shape, place_node)


def _axis_list(value, what):
    if isinstance(value, Axis):
        return [value]
    try:
        items = list(value)
    except TypeError:
        items = None
    if items is None or not all(isinstance(a, Axis) for a in items):
        raise QuadrantsRuntimeError(f"{what}: expected axes such as qd.i, qd.ij or qd.axes(0, 1), but got {value!r}.")
    return items


def _extents(dimensions, count, kind, allow_empty):
    if isinstance(dimensions, numbers.Integral) and not isinstance(dimensions, bool):
        dimensions = [dimensions] * count
    try:
        extents = [int(d) for d in dimensions]
    except (TypeError, ValueError):
        raise QuadrantsRuntimeError(f"{kind}(): the shape must be an int or a list of ints, but got "
                                    f"{dimensions!r}.") from None
    if len(extents) == 1 and count > 1:
        extents = extents * count
    if len(extents) != count:
        raise QuadrantsRuntimeError(f"{kind}(): {count} axes but {len(extents)} extents ({list(dimensions)}); give "
                                    "one extent per axis, or a single int for all of them.")
    low = 0 if allow_empty else 1
    for extent in extents:
        if extent < low:
            raise QuadrantsRuntimeError(f"{kind}(): every extent must be positive, but got {list(extents)}.")
    return extents


def _offset_tuple(offset, ndim):
    if offset is None:
        return None
    if isinstance(offset, numbers.Integral):
        offset = (offset,)
    offset = tuple(int(o) for o in offset)
    if len(offset) != ndim:
        raise QuadrantsRuntimeError(f"place(offset=...): the field has {ndim} dimension(s) but the offset {offset} has "
                                    f"{len(offset)}.")
    return offset if any(offset) else None


# ---- qd.root ------------------------------------------------------------------------------------
_roots = {}  # generation -> the root nodes of qd.root's trees under that qd.init(), the current one last
_builder_roots = {}  # generation -> the root nodes of the FieldsBuilders finalized under that qd.init()
_tree_ids = {}  # generation -> how many SNode trees it has


def _next_tree_id():
    generation = _runtime.generation()
    _tree_ids[generation] = _tree_ids.get(generation, -1) + 1
    return _tree_ids[generation]


def _current_root_node(create=True):
    """qd.root's node under the current qd.init() (initializing with defaults when needed); once a kernel
    used a field of its tree, fields placed afterwards go to a new tree (upstream finalizes it then)."""
    if create:
        _runtime.config()
    generation = _runtime.generation()
    nodes = _roots.get(generation)
    if nodes is None:
        if not create:
            return None
        _roots.clear()  # trees of earlier generations were freed by reset()
        _tree_ids.clear()
        nodes = _roots[generation] = []
    if create and (not nodes or nodes[-1]._tree.used):
        nodes.append(SNode("root", None, tree=_Tree(eager=True)))
    return nodes[-1] if nodes else None


def _close_root_tree():
    """qd.sync(): upstream materializes qd.root's tree then, so fields placed afterwards go to a new tree (one with
    no nodes yet stays open)."""
    nodes = _roots.get(_runtime.generation())
    if nodes and nodes[-1]._children:
        nodes[-1]._tree.used = True


registry.provide("close_root_tree", _close_root_tree)


def _root_nodes():
    return _roots.get(_runtime.generation(), [])


class _Root:
    """qd.root: the root of the default SNode tree, a new one after every qd.init() and qd.reset()."""

    def __getattr__(self, name):
        return getattr(_current_root_node(), name)

    @property
    def shape(self):
        return ()

    def parent(self, n=1):
        return None

    def deactivate_all(self):
        """Deactivates every sparse cell of qd.root's trees."""
        for node in _root_nodes():
            node.deactivate_all()

    def __eq__(self, other):
        return other is self or any(other is node for node in _root_nodes())

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return "qd.root"


root = _Root()


def field_node_for_shape(shape, role="primal"):
    """The node qd.field(dtype, shape) places its field in: a dense node of qd.root of its own (the root for 0-d).
    Gradients and duals (role 'grad', 'dual') get nodes of their own too, as upstream places them, so a field's
    cell holds only its own components (zero_copy.py reads that); AoS struct members share one (shared_cells.py)."""
    node = _current_root_node()
    if not shape:
        return node
    if len(shape) > MAX_AXES:
        raise ValueError(f"A field has at most {MAX_AXES} dims (upstream's maximum dimensionality), but the shape "
                         f"{tuple(shape)} has {len(shape)}.")
    return shared_cells.node_for(role, shape, node._tree, lambda: node._child(
        "dense", axes(*range(len(shape))), list(shape), allow_empty=True))


class SNodeHandle:
    """x.snode.ptr: upstream's handle of the C++ SNode; answers the autodiff queries upstream programs make
    about the field a place node holds."""

    def __init__(self, node):
        self._node = node

    def _twin(self, attr):
        field = self._node._field
        twin = getattr(field, attr, None)
        return twin is not None and twin._place_node is not None

    def has_adjoint(self):
        return self._twin("grad")

    def has_dual(self):
        return self._twin("dual")

    def has_adjoint_checkbit(self):
        """Whether the field has the read marks of qd.ad.Tape(validation=True) (quadrants/ad/_validation.py),
        made the first time such a Tape checks a kernel that uses it."""
        return getattr(self._node._field, "_qd_read_marks", None) is not None

    def get_num_ch(self):
        """The node's children as upstream counts them: a vector/matrix field placed as a whole is one child per
        entry there (zero_copy.components)."""
        return zero_copy.components(self._node)

    def get_snode_grad_type(self):
        field = self._node._field
        if getattr(field, "_grad_of", None) is not None:
            return SNodeGradType.ADJOINT
        if getattr(field, "_dual_of", None) is not None:
            return SNodeGradType.DUAL
        return SNodeGradType.PRIMAL
