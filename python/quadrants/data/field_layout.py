# python/quadrants/data/field_layout.py: the Python-scope side of a field's layout: offsets, cell activity, pools.
#
# A field under pointer/bitmasked/dynamic nodes (its "activity path", outermost first) has zeros in every
# inactive cell. A cell of node S that holds element I of the field is I // (field extent / S extent)
# along each axis of S; a dynamic node's length is kept per cell of its parent. Activating a cell
# activates its ancestors' cells too, and deactivating one clears its descendants, so "the innermost
# sparse node's cell is active" decides whether an element is visited.
#
# Storage: one dense array per field, except under a pooled pointer (the outermost pointer of a path,
# on the CPU). There the field's array is a pool of chunks, one chunk per pointer cell that was ever
# activated: shape (cells + 1,) + the cell's block of the field. Chunk 0 stays zero, so an inactive
# cell reads zeros with no branch. The pointer keeps per cell an i32 `slot` word:
#   0                never activated; reads go to chunk 0
#   s                active, data in chunk s (0 < s < INACTIVE)
#   s | INACTIVE     deactivated: chunk s was zeroed and stays the cell's for its next activation
#   LOCK bit set     a kernel thread is activating the cell (see sparse_access.py)
# and a counter of chunks handed out. The pool is reserved zero-filled (HostPages::sparse), whose pages the OS
# maps only when first written, so memory follows the chunks used, not the pool's size.
import numpy as np

from quadrants.data.container import ArrayContainer

INACTIVE = 1 << 29
LOCK = 1 << 30
SLOT_MASK = INACTIVE - 1


class FieldLayout:
    """Offsets, activity and storage of one placed field (field.py keeps it as `field._layout`)."""

    def __init__(self, field, node, offset):
        self.field = field
        self.node = node  # the field's place node
        self.offset = offset  # a tuple, or None when every offset is 0
        path = node._activity_path()
        self.activity = path or None  # the sparse nodes above the field, outermost first
        self.innermost = path[-1] if path else None
        self.pool = next((n for n in path if n._pooled), None)  # the pointer whose chunks hold the data

    def ratio(self, snode, axis):
        """Field elements per cell of `snode` along `axis`."""
        return self.node._axis_extent[axis] // snode._axis_extent[axis]

    def cell(self, snode, raw):
        """The cell of `snode` (an ancestor) holding the element at the raw (unshifted) index."""
        dims = self.node.dims
        return [raw[dims.index(a)] // self.ratio(snode, a) for a in snode.dims]

    def dynamic_position(self, snode, raw):
        """The position in its list of the element at `raw`, for a dynamic ancestor `snode`."""
        return raw[self.node.dims.index(snode._axes[0])]

    # ---- pools ----------------------------------------------------------------------------------
    def block_shape(self):
        """The field's elements in one cell of the pool's pointer, per field dim."""
        pool, extent = self.pool, self.node._axis_extent
        return tuple(self.ratio(pool, a) if a in pool.dims else extent[a] for a in self.node.dims)

    def storage_shape(self):
        """The outer shape of the field's array: its shape, or (pool chunks,) + block for a pooled field."""
        if self.pool is None:
            return self.field.shape
        return (int(np.prod(self.pool.shape, dtype=np.int64)) + 1,) + self.block_shape()

    def storage_index(self, raw):
        """The array index of the element at raw outer index `raw`."""
        if self.pool is None:
            return list(raw)
        slot = self.pool._slots._array.get(self.cell(self.pool, raw)) & SLOT_MASK
        blocks = self.block_shape()
        return [slot] + [r % b if a in self.pool.dims else r for r, b, a in zip(raw, blocks, self.node.dims)]

    def _pool_view(self):
        """A numpy view of the field's array on the CPU (a pooled field's pool)."""
        field = self.field

        class _Export:
            def __dlpack__(self, **kwargs):
                return ArrayContainer.__dlpack__(field, **kwargs)

            def __dlpack_device__(self):
                return ArrayContainer.__dlpack_device__(field)

        return np.from_dlpack(_Export())

    def _slot_words(self):
        return self.pool._slots.to_numpy()

    def _to_blocks_axes(self):
        """Axis order that takes (for each field dim: pointer extent and block, or the extent) to
        (pointer dims..., block dims...)."""
        pool, names = self.pool, []
        for d, axis in enumerate(self.node.dims):
            if axis in pool.dims:
                names.append(("cell", pool.dims.index(axis)))
            names.append(("block", d))
        wanted = [("cell", k) for k in range(len(pool.dims))] + [("block", d) for d in range(len(self.node.dims))]
        return [names.index(w) for w in wanted], len(names)

    def gather(self):
        """The field as a dense numpy array (inactive cells zero)."""
        field = self.field
        element_shape = field._element_shape
        chunks = self._pool_view()[self._slot_words() & SLOT_MASK]  # pointer shape + block + element
        order, count = self._to_blocks_axes()
        # chunks are (pointer cells..., block...): put each cell axis back before its block axis, then merge them.
        inverse = list(np.argsort(order)) + list(range(count, count + len(element_shape)))
        return chunks.transpose(inverse).reshape(field.shape + element_shape)

    def scatter(self, values):
        """Writes a dense numpy array (the field's numpy shape) into the chunks of the active cells."""
        pool, element_shape = self.pool, self.field._element_shape
        split = [s for a, b in zip(self.node.dims, self.block_shape())
                 for s in ((pool._axis_extent[a], b) if a in pool.dims else (b,))]
        order, count = self._to_blocks_axes()
        order = order + list(range(count, count + len(element_shape)))
        blocks = values.reshape(tuple(split) + element_shape).transpose(order)
        words = self._slot_words()
        active = (words > 0) & (words < INACTIVE)
        self._pool_view()[words[active]] = blocks.reshape(pool.shape + blocks.shape[len(pool.dims):])[active]

    def fill_active(self, element):
        """Sets every element of the active cells' chunks to `element` (a scalar or one element's array)."""
        words = self._slot_words()
        self._pool_view()[words[(words > 0) & (words < INACTIVE)]] = element

    def zero_active(self):
        """Zeroes the elements of active cells of a field with dense storage on the CPU."""
        active = self.active_elements()
        if active is not None:
            self._pool_view()[active] = 0

    def zero_used_chunks(self):
        """Zeroes the chunks handed out so far (deactivate_all), leaving the others' pages unmapped."""
        used = self.pool._next._array.get([0])
        # Page by page back to the OS rather than written: a chunk holding dynamic lists is laid out at their
        # full length (gigabytes) but written only where lists grew (Array.zero_outer).
        self.field._array.zero_outer(0, used)

    # ---- element access and activation ----------------------------------------------------------
    def get(self, index):
        """The scalar at a raw index (outer dims, then element dims)."""
        n = len(self.field.shape)
        return self.field._array.get(self.storage_index(index[:n]) + list(index[n:]))

    def set(self, index, value):
        """Writes the scalar at a raw index, activating its cells first."""
        n = len(self.field.shape)
        if self.activity is not None:
            self.activate(index[:n])
        self.field._array.set(self.storage_index(index[:n]) + list(index[n:]), value)

    def activate(self, raw):
        """Activates every sparse cell that holds the element at `raw` (a Python-scope write)."""
        for snode in self.activity:
            if snode._pooled:
                _activate_pooled(snode, self.cell(snode, raw))
            elif snode._kind == "dynamic":
                lengths, cell = snode._lengths._array, self.cell(snode._parent, raw)
                needed = self.dynamic_position(snode, raw) + 1
                if lengths.get(cell) < needed:
                    lengths.set(cell, needed)
            else:
                mask, cell = snode._mask._array, self.cell(snode, raw)
                if not mask.get(cell):
                    mask.set(cell, 1)

    def activate_all(self):
        """Every cell of every sparse node above the field active (dynamic lists full)."""
        for snode in self.activity or ():
            if snode._pooled:
                words = snode._slots.to_numpy()
                fresh = words == 0
                first = snode._next._array.get([0])
                words[fresh] = np.arange(first, first + int(fresh.sum()), dtype=np.int32)
                snode._slots.from_numpy(words & SLOT_MASK)
                snode._next._array.set([0], first + int(fresh.sum()))
            elif snode._kind == "dynamic":
                snode._lengths.fill(snode._extents[0])
            else:
                snode._mask.fill(1)

    # ---- whole-field views ----------------------------------------------------------------------
    def active_elements(self):
        """A bool numpy array of the field's shape: which elements lie in active cells (None: all do)."""
        snode = self.innermost
        if snode is None:
            return None
        if snode._pooled:
            words = snode._slots.to_numpy()
            return self.expand((words > 0) & (words < INACTIVE), snode)
        if snode._kind != "dynamic":
            return self.expand(snode._mask.to_numpy() != 0, snode)
        dim = self.node.dims.index(snode._axes[0])
        lengths = self.expand(snode._lengths.to_numpy(), snode._parent)
        positions = np.arange(self.field.shape[dim]).reshape([-1 if d == dim else 1 for d in range(lengths.ndim)])
        return positions < lengths

    def expand(self, values, snode):
        """Per-cell values of ancestor `snode` (shaped snode.shape) repeated over the field's elements."""
        for k, axis in enumerate(snode.dims):
            values = np.repeat(values, self.ratio(snode, axis), axis=k)
        # Both dims lists are sorted, so the ancestor's axes appear in the field's in the same order.
        values = values[tuple(slice(None) if a in snode.dims else np.newaxis for a in self.node.dims)]
        return np.broadcast_to(values, self.field.shape)

    def clear_inactive(self):
        """Zeroes the elements of inactive cells (after a fill or copy that wrote every element)."""
        active = self.active_elements()
        if active is None or active.all():
            return
        data = ArrayContainer._to_numpy(self.field)
        data[~active] = 0
        ArrayContainer._from_numpy(self.field, data)


def _activate_pooled(snode, cell):
    slots = snode._slots._array
    word = slots.get(cell)
    if word == 0:
        word = snode._next._array.get([0])
        snode._next._array.set([0], word + 1)
    slots.set(cell, word & SLOT_MASK)
