# python/quadrants/data/snode_activation.py: qd.deactivate_all_snodes(), the deactivation of every SNode tree.
from quadrants.data import snode as _snode
from quadrants.runtime import init as _runtime


def deactivate_all_snodes():
    """Deactivates every cell of every pointer, bitmasked and dynamic SNode of the finalized SNode trees (qd.root's
    and those of finalized FieldsBuilders) under the current qd.init(); their fields read 0 again, as upstream."""
    generation = _runtime.generation()
    for root in _snode._roots.get(generation, []) + _snode._builder_roots.get(generation, []):
        if not root._tree.destroyed:
            root.deactivate_all()
