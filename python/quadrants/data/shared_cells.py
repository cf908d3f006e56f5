# python/quadrants/data/shared_cells.py: one dense node for all the members of an AoS struct field.
#
# Every field has an array of its own here, so the SNode tree only records where upstream would put things;
# zero_copy.py and SNodeHandle.get_num_ch read it. Upstream places the members of an AoS struct field (the default
# layout) side by side in one dense node, and their gradients in another: while `with one_cell():` is open,
# field_node_for_shape (snode.py) hands every field made with a shape the node of its role ('primal', 'grad',
# 'dual') instead of a new one.
_shared = None  # role -> dense node, while a one_cell() is open


class one_cell:
    """`with one_cell():` fields made with a shape inside share one dense node per role; nested uses join the
    outermost (a struct member of a struct)."""

    def __enter__(self):
        global _shared
        self._outermost = _shared is None
        if self._outermost:
            _shared = {}
        return self

    def __exit__(self, *exc):
        global _shared
        if self._outermost:
            _shared = None
        return False


def node_for(role, shape, tree, make):
    """The node a field of `role` and `shape` in `tree` is placed in: the shared one while one_cell() is open
    (made by make() the first time), else make()."""
    if _shared is None:
        return make()
    node = _shared.get(role)
    if node is None or node.shape != tuple(shape) or node._tree is not tree:
        node = _shared[role] = make()
    return node
