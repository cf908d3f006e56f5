# python/quadrants/data/fields_builder.py: qd.FieldsBuilder, an SNode tree built and finalized by hand (fields defined
# at any time, even after kernels ran), and the SNodeTree that finalize() returns.
import warnings

from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data import snode as _snode
from quadrants.runtime import init as _runtime


class SNodeTree:
    """A finalized tree of a FieldsBuilder; destroy() frees its fields."""

    def __init__(self, tree, root_node):
        self._tree = tree
        self.root = root_node

    def destroy(self):
        """Frees the storage of the tree's fields; using them afterwards is an error."""
        if self._tree.destroyed:
            raise QuadrantsRuntimeError("This SNode tree was already destroyed.")
        self._tree.destroyed = True
        for field in self._tree.fields:
            field._free("its SNode tree was destroyed (SNodeTree.destroy())")
        for node in self._tree.nodes:
            for hidden in (node._mask, node._lengths, node._slots, node._next):
                if hidden is not None:
                    hidden._free("its SNode tree was destroyed")
        _runtime.drop_compiled_kernels()


class FieldsBuilder:
    """Builds an SNode tree for fields defined at any time, even after kernels ran:
    fb.dense(qd.ij, 8).place(x); fb.finalize(). Its fields can be used once finalize() returns."""

    def __init__(self):
        _runtime.config()
        self._tree = _snode._Tree(eager=False)
        self.root = _snode.SNode("root", None, tree=self._tree)
        self._generation = _runtime.generation()
        self.empty = True
        self.finalized = False  # an instance attribute, as upstream's; finalize() sets it

    @classmethod
    def _finalized_roots(cls):
        """The root nodes of the finalized trees, oldest first: qd.root's trees that a kernel, qd.sync() or
        materialize_root_fb() closed, and those of finalized FieldsBuilders."""
        generation = _runtime.generation()
        roots = [n for n in _snode._root_nodes() if n._tree.used]
        roots += _snode._builder_roots.get(generation, [])
        return sorted(roots, key=lambda n: n._tree.id)

    def lazy_grad(self):
        """Gives every float field of this builder's tree that has no gradient one (SNode.lazy_grad)."""
        self.root.lazy_grad()

    def lazy_dual(self):
        """As lazy_grad(), for duals (forward mode)."""
        self.root.lazy_dual()

    def quant_array(self, axes, dimensions, max_num_bits):
        """A quant_array child of the builder's root (SNode.quant_array)."""
        self.empty = False
        return self.root.quant_array(axes, dimensions, max_num_bits)

    def dense(self, axes, dimensions):
        self.empty = False
        return self.root.dense(axes, dimensions)

    def pointer(self, axes, dimensions):
        self.empty = False
        return self.root.pointer(axes, dimensions)

    def bitmasked(self, axes, dimensions):
        self.empty = False
        return self.root.bitmasked(axes, dimensions)

    def dynamic(self, axis, dimension, chunk_size=None):
        self.empty = False
        return self.root.dynamic(axis, dimension, chunk_size)

    def place(self, *fields, offset=None):
        self.empty = False
        self.root.place(*fields, offset=offset)

    def deactivate_all(self):
        self.root.deactivate_all()

    def finalize(self, raise_warning=True):
        """Allocates the tree's fields; returns the SNodeTree (whose destroy() frees them)."""
        if self._tree.finalized:
            raise QuadrantsRuntimeError("This FieldsBuilder is already finalized.")
        if self._generation != _runtime.generation():
            raise QuadrantsRuntimeError("This FieldsBuilder was created before the last qd.init()/qd.reset(); "
                                        "create a new one.")
        if self.empty and raise_warning:
            warnings.warn("Finalizing an empty FieldsBuilder.", stacklevel=2)
        self._tree.finalized = self.finalized = True
        for node in self._tree.nodes:
            node._allocate()
        if self._generation not in _snode._builder_roots:  # those of earlier generations were freed by reset()
            _snode._builder_roots.clear()
        _snode._builder_roots.setdefault(self._generation, []).append(self.root)  # for qd.deactivate_all_snodes()
        return SNodeTree(self._tree, self.root)
