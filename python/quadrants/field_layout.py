# python/quadrants/field_layout.py: the Python-scope side of a field's layout: index offsets and cell activity.
#
# A field under pointer/bitmasked/dynamic nodes (its "activity path", outermost first) keeps its data in
# one dense array whose inactive cells are zero. A cell of node S that holds element I of the field is
# I // (field extent / S extent) along each axis of S; a dynamic node's length is kept per cell of its
# parent. Activating a cell activates its ancestors' cells too, and deactivating one clears its
# descendants, so "the innermost sparse node's cell is active" decides whether an element is visited.
import numpy as np


class FieldLayout:
    """Offsets and activity of one placed field (field.py keeps it as `field._layout`)."""

    def __init__(self, field, node, offset):
        self.field = field
        self.node = node  # the field's place node
        self.offset = offset  # a tuple, or None when every offset is 0
        path = node._activity_path()
        self.activity = path or None  # the sparse nodes above the field, outermost first
        self.innermost = path[-1] if path else None

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

    # ---- activation -----------------------------------------------------------------------------
    def activate(self, raw):
        """Activates every sparse cell that holds the element at `raw` (a Python-scope write)."""
        for snode in self.activity:
            if snode._kind == "dynamic":
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
            if snode._kind == "dynamic":
                snode._lengths.fill(snode._extents[0])
            else:
                snode._mask.fill(1)

    # ---- whole-field views ----------------------------------------------------------------------
    def active_elements(self):
        """A bool numpy array of the field's shape: which elements lie in active cells (None: all do)."""
        snode = self.innermost
        if snode is None:
            return None
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
        from ._container import ArrayContainer

        active = self.active_elements()
        if active is None or active.all():
            return
        data = ArrayContainer.to_numpy(self.field)
        data[~active] = 0
        ArrayContainer.from_numpy(self.field, data)
