# python/quadrants/lang/simt_values.py: a qd.simt.block.SharedArray inside a kernel, and its elements as targets.
#
# Kept out of the simt package so that the translator's modules can import it without the package.
from .ir_builder import Expr


class SharedArray:
    """A block's shared array inside a kernel: declared where the constructor runs, indexed like an array."""

    def __init__(self, name, dtype_name, shape):
        self.name = name
        self.dtype_name = dtype_name
        self.shape = shape

    def indices(self, tr, index):
        parts = list(index) if isinstance(index, (tuple, list)) else [index]
        if len(parts) != len(self.shape):
            raise tr.fail(f"shared array '{self.name}' has {len(self.shape)} dimension(s) but was indexed with "
                          f"{len(parts)} index(es)", kind="type")
        return [tr.ops.text(tr.scalar(p, "a shared array index")) for p in parts]

    def load(self, tr, index):
        return Expr(f"(shared_load {self.name} ({' '.join(self.indices(tr, index))}))")

    def target(self, tr, index):
        return SharedTarget(self.name, self.indices(tr, index))


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
