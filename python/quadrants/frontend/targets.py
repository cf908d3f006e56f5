# python/quadrants/frontend/targets.py: what an assignment stores into: a local, an array element's entry, or a
# vector of them (a vector/matrix element or local). Statements, dynamic indices, struct values and shared arrays
# make them; stmts.py stores through them.
from quadrants.frontend.ir_builder import Expr


class VarTarget:
    def __init__(self, name, parallel_depth):
        self.name = name
        self.parallel_depth = parallel_depth

    def load(self):
        return Expr(f"(var {self.name})")

    def store_head(self, text):
        return f"assign {self.name} {text}"

    def atomic_head(self, op, text):
        return f"(atomic {op} (var {self.name}) {text})"


class ArrayTarget:
    """An array element's entry; element_index holds IR texts (constants, or one runtime index)."""

    def __init__(self, array, indices, element_index):
        self.array = array
        self.indices = list(indices)
        self.element_index = [str(e) for e in element_index]
        self.where = f"{array.name} ({' '.join(self.indices)}) ({' '.join(self.element_index)})"

    def load(self):
        return Expr(f"(load {self.where})")

    def store_head(self, text):
        return f"store {self.where} {text}"

    def atomic_head(self, op, text):
        return f"(atomic {op} {self.where} {text})"


class VectorTarget:
    def __init__(self, targets, shape):
        self.targets = targets
        self.shape = tuple(shape)
