# python/quadrants/frontend/dynamic_index.py: v[i] and m[i, j] with runtime indices, read and written.
#
# The IR is scalar, so a vector has no address to index. A runtime index picks one of the candidates
# along one axis (the entries of a vector, the rows of a matrix, then the entries of that row):
# - the entries of a container element (`a[k]`) differ only in one element index, so they merge into
#   one load, store or atomic whose element index is the runtime index (docs/IR.md);
# - other candidates (locals, computed values) are read through a balanced tree of selects, and
#   written with one select per local of the running thread (`v_k = i == k ? x : v_k`) or an if per
#   other target: a local declared outside the running parallel loop is shared by its threads, and a
#   select would write every entry back, racing with the threads that write the others.
# In bounds mode (debug or check_out_of_bound) an index outside the vector is an AssertionError ("Out of
# bound access"), as upstream; merged container accesses are bounds-checked like any array access instead.
# Otherwise a read gives the nearest entry, a write changes nothing, and a container index is clamped:
# never a crash.
# An array of qd.types.ndarray(boundary="clamp") clamps a runtime element index as upstream does: an
# entry's row-major offset in the element is clamped into [0, n*m - 1] (m[i, j] with j = -1 is the
# last entry of row i - 1); m[i, :] clamps each entry of the row so (matrix_slices.py picks them one by one).
from quadrants.frontend.ir_builder import Expr, string_text
from quadrants.frontend.targets import ArrayTarget, VectorTarget
from quadrants.frontend.values import VectorValue
from quadrants.frontend.vector_ops import describe


class ElementLoad(Expr):
    """`(load NAME (IDX...) (EIDX...))` of an array element's entry, with its parts kept for merging.

    clamp_shape is the element shape of a boundary="clamp" array (runtime element indices are clamped
    into it), else None."""

    __slots__ = ("array_name", "indices", "element_index", "clamp_shape")

    def __init__(self, array_name, indices, element_index, clamp_shape=None):
        self.array_name = array_name
        self.indices = list(indices)
        self.element_index = [str(e) for e in element_index]
        self.clamp_shape = clamp_shape
        super().__init__(f"(load {array_name} ({' '.join(self.indices)}) ({' '.join(self.element_index)}))")


class SelectTarget:
    """An assignment target picked at run time: targets[k] when the IR index `index` equals k."""

    def __init__(self, targets, index):
        self.targets = list(targets)
        self.index = index

    @property
    def parallel_depth(self):
        return min(getattr(t, "parallel_depth", 0) for t in self.targets)

    @property
    def writes_array(self):
        return any(hasattr(t, "array") or getattr(t, "writes_array", False) for t in self.targets)

    def load(self):
        return Expr(select_tree([t.load().text for t in self.targets], self.index))

    def leaves(self, conditions=()):
        """(conditions, scalar target) for every target this one may be, conditions as IR texts."""
        for k, target in enumerate(self.targets):
            here = conditions + (f"(bin eq {self.index} (const int {k}))",)
            if isinstance(target, SelectTarget):
                yield from target.leaves(here)
            else:
                yield here, target

    def emit_store(self, tr, text):
        """Stores the IR value `text` (evaluated once) into the picked target only."""
        text = _simple(tr, text)
        for conditions, leaf in self.leaves():
            cond = _all(conditions)
            if hasattr(leaf, "name") and getattr(leaf, "parallel_depth", 0) >= tr.parallel_depth:
                # a thread's own local: a select keeps the code branch-free
                tr.builder.emit(f"assign {leaf.name} (select {cond} {text} {leaf.load().text})")
            else:
                tr.builder.open()
                if hasattr(leaf, "emit_store"):  # a quantized field's entry: a loop on its word (quant_access.py)
                    leaf.emit_store(tr, text)
                else:
                    tr.builder.emit(leaf.store_head(text))
                tr.builder.emit(f"if {cond}", [tr.builder.close(), []])

    def emit_atomic(self, tr, op, text):
        """The atomic update of the picked target; the old value, in a local."""
        text = _simple(tr, text)
        leaves = list(self.leaves())
        old = tr.names.fresh("_old")
        tr.builder.emit(f"decl {old} {leaves[0][1].load().text}")
        for conditions, leaf in leaves:
            tr.builder.open()
            if hasattr(leaf, "emit_atomic"):  # a quantized field's entry (quant_access.py)
                tr.builder.emit(f"assign {old} {leaf.emit_atomic(tr, op, text).text}")
            else:
                tr.builder.emit(f"assign {old} {leaf.atomic_head(op, text)}")
            tr.builder.emit(f"if {_all(conditions)}", [tr.builder.close(), []])
        return Expr(f"(var {old})")


class DynamicIndexing:
    """Translator mixin: the runtime-index paths of exprs.py (reads) and stmts.py (writes).

    `what` is how messages name the vector being indexed, e.g. 'a 3-vector'.
    """

    def dynamic_vector_element(self, vector, parts):
        """`vector[parts]` where some part is a runtime value."""
        what = describe(vector)
        self.check_index_parts(what, vector.shape, parts)
        value = vector
        for part in parts:
            extent = value.shape[0]
            if not is_runtime_index(part):
                k = self.constant_index(part, extent, what)
                value = value.row(k) if value.is_matrix else value.entries[k]
            elif value.is_matrix:  # each column picks its entry of the runtime row
                index = self.runtime_index(part)
                rows = [value.row(r) for r in range(extent)]
                value = VectorValue([self.pick([row.entries[c] for row in rows], index, what)
                                     for c in range(value.shape[1])], (value.shape[1],))
            else:
                value = self.pick(value.entries, self.runtime_index(part), what)
        return clamped_load(value)

    def pick(self, candidates, index, what):
        merged = merged_load(candidates, index)
        if merged is not None:
            return merged
        self.assert_in_range(index, len(candidates), what)
        candidates = [self.materialize_value(c) for c in candidates]
        return Expr(select_tree([self.ops.text(c) for c in candidates], index))

    def dynamic_target_element(self, target, parts):
        """The target `target[parts]` of a VectorTarget, where some part is a runtime value."""
        what = describe(VectorValue([0] * len(target.targets), target.shape))
        self.check_index_parts(what, target.shape, parts)
        value = target
        for part in parts:
            extent = value.shape[0]
            if not is_runtime_index(part):
                k = self.constant_index(part, extent, what)
                if len(value.shape) == 2:
                    m = value.shape[1]
                    value = VectorTarget(value.targets[k * m:(k + 1) * m], (m,))
                else:
                    value = value.targets[k]
            elif len(value.shape) == 2:
                index = self.runtime_index(part)
                n, m = value.shape
                value = VectorTarget([self.pick_target([value.targets[r * m + c] for r in range(n)], index, what)
                                      for c in range(m)], (m,))
            else:
                value = self.pick_target(value.targets, self.runtime_index(part), what)
        return clamped_target(value)

    def pick_target(self, targets, index, what):
        merged = merged_array_target(targets, index)
        if merged is not None:
            return merged
        self.assert_in_range(index, len(targets), what)
        return SelectTarget(targets, index)

    def check_index_parts(self, what, shape, parts):
        if len(parts) != len(shape):  # upstream's words; a row is m[i, :] (matrix_slices.py)
            raise self.fail(f"Expected {len(shape)} indices, got {len(parts)}: {what} takes {len(shape)}",
                            kind="index", hint="index a vector as v[i] and a matrix as m[i, j] (a row: m[i, :]).")
        for part in parts:
            if not (is_runtime_index(part) or (isinstance(part, int) and not isinstance(part, bool))):
                raise self.fail(f"{what} can only be indexed with integers, but got {describe(part)}", kind="type")

    def constant_index(self, k, extent, what):
        if not -extent <= k < extent:
            raise self.fail(f"index {k} is out of range for {what}", kind="type")
        return k % extent

    def runtime_index(self, part):
        """The IR text of a runtime index, in a local unless it is a plain variable, argument or constant."""
        if part.text.startswith(("(var ", "(arg ", "(const ")):
            return part.text
        return self.snapshot(self.materialize(part)).text

    def assert_in_range(self, index, extent, what):
        """Bounds mode (debug or check_out_of_bound): an index outside [0, extent) stops the kernel with
        upstream's 'Out of bound access'."""
        if not self.config.check_out_of_bound:
            return
        line = self.builder.loc[0] if self.builder.loc else 0
        where = f"{self.ctx.source.filename}:{line}" if line else self.ctx.source.filename
        message = f"Out of bound access: a runtime index into {what} must be in [0, {extent}) ({where})"
        cond = f"(bin and (bin ge {index} (const int 0)) (bin lt {index} (const int {extent})))"
        self.builder.emit(f"assert {cond} {string_text(message)}")


def is_runtime_index(part):
    return isinstance(part, Expr)


def select_tree(texts, index, first=0):
    """A balanced tree of selects on `index` giving texts[k] when index == first + k (the ends outside)."""
    if len(texts) == 1:
        return texts[0]
    mid = len(texts) // 2
    return (f"(select (bin lt {index} (const int {first + mid})) {select_tree(texts[:mid], index, first)} "
            f"{select_tree(texts[mid:], index, first + mid)})")


def _candidate_axis(parts_list):
    """The element-index position along which parts_list[k] holds k, all else equal; None if there is none."""
    first = parts_list[0]
    if len(parts_list) < 2 or any(len(p) != len(first) for p in parts_list):
        return None
    for axis in range(len(first)):
        if all(p[axis] == str(k) and p[:axis] + p[axis + 1:] == first[:axis] + first[axis + 1:]
               for k, p in enumerate(parts_list)):
            return axis
    return None


def merged_load(candidates, index):
    """One load with the runtime element index when the candidates are the entries of one array element."""
    if not all(isinstance(c, ElementLoad) for c in candidates):
        return None
    first = candidates[0]
    if any(c.array_name != first.array_name or c.indices != first.indices for c in candidates):
        return None
    axis = _candidate_axis([c.element_index for c in candidates])
    if axis is None:
        return None
    element_index = list(first.element_index)
    element_index[axis] = index
    return ElementLoad(first.array_name, first.indices, element_index, first.clamp_shape)


def merged_array_target(targets, index):
    """The ArrayTarget form of merged_load."""
    if not all(isinstance(t, ArrayTarget) for t in targets):
        return None
    first = targets[0]
    if any(t.array is not first.array or t.indices != first.indices or t.guard != first.guard for t in targets):
        return None
    axis = _candidate_axis([t.element_index for t in targets])
    if axis is None:
        return None
    element_index = list(first.element_index)
    element_index[axis] = index
    return ArrayTarget(first.array, first.indices, element_index, first.guard)


def clamped_load(value):
    """A load picked at run time (dynamic_vector_element's result), clamped where boundary="clamp" says."""
    def shape_of(load):
        return load.clamp_shape if isinstance(load, ElementLoad) else None

    def rebuild(load, index):
        return ElementLoad(load.array_name, load.indices, index, load.clamp_shape)

    return _clamped(value, shape_of, rebuild, _clamped_offset)


def clamped_target(target):
    """The target form of clamped_load (dynamic_target_element's result)."""
    def shape_of(t):
        clamp = isinstance(t, ArrayTarget) and getattr(t.array, "clamp", False)
        return t.array.element_shape if clamp else None

    def rebuild(t, index):
        return ArrayTarget(t.array, t.indices, index)

    return _clamped(target, shape_of, rebuild, _clamped_offset)


def _clamped(item, shape_of, rebuild, clamp):
    shape = shape_of(item)
    if shape is None or not any(e.startswith("(") for e in item.element_index):  # constants are checked already
        return item
    return rebuild(item, clamp(item.element_index, shape))


def _clamp_text(text, high):
    return f"(bin min (bin max {text} (const int 0)) (const int {high}))"


def _expression(entry):
    """An element index entry as an IR expression: a constant entry is a bare integer in a load's index list."""
    return entry if entry.startswith("(") else f"(const int {entry})"


def _clamped_offset(element_index, shape):
    if len(shape) == 1:
        return [_clamp_text(element_index[0], shape[0] - 1)]
    n, m = shape
    row, column = (_expression(e) for e in element_index)  # m[i, :] picks runtime row i with constant columns
    offset = _clamp_text(f"(bin add (bin mul {row} (const int {m})) {column})", n * m - 1)
    return [f"(bin floordiv {offset} (const int {m}))", f"(bin mod {offset} (const int {m}))"]


def _simple(tr, text):
    """`text` if it is cheap and pure to repeat, else the name of a local holding it."""
    if text.startswith(("(var ", "(arg ", "(const ")):
        return text
    name = tr.names.fresh("_v")
    tr.builder.emit(f"decl {name} {text}")
    return f"(var {name})"


def _all(conditions):
    text = conditions[0]
    for cond in conditions[1:]:
        text = f"(bin and {text} {cond})"
    return text
