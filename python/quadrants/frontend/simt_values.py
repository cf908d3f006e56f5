# python/quadrants/frontend/simt_values.py: a qd.simt.block.SharedArray inside a kernel, and its elements as targets.
#
# Kept out of the simt package so that the translator's modules can import it without the package.
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.targets import VectorTarget
from quadrants.frontend.values import VectorValue


class SharedArray:
    """A block's shared array inside a kernel: declared where the constructor runs, indexed like an array.

    An array of vectors or matrices is one scalar array with the element's dims last (the IR sees only
    scalars); indexing it gives a vector value, or a vector target to assign.
    """

    def __init__(self, name, dtype_name, shape, element_shape=()):
        self.name = name
        self.dtype_name = dtype_name
        self.shape = shape
        self.element_shape = tuple(element_shape)

    def indices(self, tr, index):
        parts = list(index) if isinstance(index, (tuple, list)) else [index]
        if len(parts) != len(self.shape):
            raise tr.fail(f"shared array '{self.name}' has {len(self.shape)} dimension(s) but was indexed with "
                          f"{len(parts)} index(es)", kind="type")
        return [tr.ops.text(tr.scalar(p, "a shared array index")) for p in parts]

    def load(self, tr, index):
        indices = self.indices(tr, index)
        if not self.element_shape:
            return Expr(f"(shared_load {self.name} ({' '.join(indices)}))")

        return VectorValue([Expr(f"(shared_load {self.name} ({' '.join(indices + e)}))") for e in self._elements()],
                           self.element_shape)

    def target(self, tr, index):
        indices = self.indices(tr, index)
        if not self.element_shape:
            return SharedTarget(self.name, indices)

        return VectorTarget([SharedTarget(self.name, indices + e) for e in self._elements()], self.element_shape)

    def _elements(self):
        """The element dims' index texts, row-major: [['0'], ['1'], ...] or [['0', '0'], ['0', '1'], ...]."""
        if len(self.element_shape) == 1:
            return [[f"(const int {i})"] for i in range(self.element_shape[0])]
        rows, cols = self.element_shape
        return [[f"(const int {i})", f"(const int {j})"] for i in range(rows) for j in range(cols)]


class SharedTarget:
    """An element of a shared array as an assignment target; `+=` on it is atomic, as on arrays."""

    parallel_depth = -1  # always shared between threads: augmented assignments are atomic

    def __init__(self, name, indices):
        self.where = f"{name} ({' '.join(indices)})"

    def load(self):
        return Expr(f"(shared_load {self.where})")

    def store_head(self, text):
        return f"shared_store {self.where} {text}"

    def atomic_head(self, op, text):
        return f"(shared_atomic {op} {self.where} {text})"
