# python/quadrants/frontend/targets.py: what an assignment stores into: a local, an array element's entry, or a
# vector of them (a vector/matrix element or local). Statements, dynamic indices, struct values and shared arrays
# make them; stmts.py stores through them.
from quadrants.frontend.ir_builder import Expr, _sexpr_end


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
    """An array element's entry; element_index holds IR texts (constants, or one runtime index).

    guard: under qd.no_activate(), the IR text of whether the element's sparse cells are active. An inactive
    element holds 0 (sparse_access.py), so a guarded write stores that element's own value back, or updates
    it with a value that leaves it unchanged: the write does nothing there, without a branch per entry."""

    def __init__(self, array, indices, element_index, guard=None):
        self.array = array
        self.indices = list(indices)
        self.element_index = [str(e) for e in element_index]
        self.where = f"{array.name} ({' '.join(self.indices)}) ({' '.join(self.element_index)})"
        self.guard = guard

    def load(self):
        return Expr(f"(load {self.where})")

    def store_head(self, text):
        return f"store {self.where} {self._guarded(text)}"

    def atomic_head(self, op, text):
        if self.guard is not None:
            text = _unchanging_operand(self, op, text)
        return f"(atomic {op} {self.where} {text})"

    def _guarded(self, text, otherwise=None):
        if self.guard is None:
            return text
        return f"(select {self.guard} {text} {otherwise or self.load().text})"


def _unchanging_operand(target, op, text):
    """The operand of atomic `op` that is `text` where the guard holds and leaves the element as it is elsewhere."""
    if op in ("add", "sub", "or", "xor"):
        return target._guarded(text, "(const int 0)")
    if op == "mul":
        return target._guarded(text, "(const int 1)")
    if op == "cas":  # (EXPECTED DESIRED): where it matches, the element is EXPECTED already
        end = _sexpr_end(text, 0)
        expected, desired = text[:end], text[end + 1:]
        return f"{expected} {target._guarded(desired, expected)}"
    return target._guarded(text)  # min, max, and, xchg: the element itself


class VectorTarget:
    def __init__(self, targets, shape):
        self.targets = targets
        self.shape = tuple(shape)
