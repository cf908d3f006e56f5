# python/quadrants/frontend/sparse_grads.py: kernels translated for the adjoint of sparse fields (activation, snapshot).
#
# A field's .grad is placed beside it (snode.py), so it lives in the primal's cells: it shares the activity
# of its pointer/bitmasked/dynamic nodes and, under a pooled pointer on the CPU, the chunk slot of each cell
# (field_layout.py). Upstream's adjoint activates the cell of every gradient element it accumulates into.
# Here reverse_ad pairs a load of PRIMAL[I] with an atomic add into GRAD[I] at the same index, and under a
# pooled pointer an inactive cell has no chunk yet (its index reads the shared chunk of zeros), so the
# cells are activated first, by a kernel of their own (ad/_adjoint.py runs it right before the adjoint):
# - mode "activate" (the prepass): every access to a sparse field that has a gradient activates its cells,
#   as a store does, and every write to the program's arrays, print and assert is dropped (drop_writes), so
#   the prepass changes nothing but activity;
# - mode "adjoint" (what reverse_ad differentiates): stores activate nothing (the prepass did; reverse_ad
#   would drop the writes anyway).
# In both modes struct-fors and qd.is_active read a snapshot of the activity taken before the prepass, so the
# adjoint visits exactly the cells the primal left active, not those activated only to hold gradients (upstream
# lists a loop's cells when the loop starts, so its own gradient writes do not add cells to it either).
# qd.append and qd.deactivate in a kernel with a prepass are refused: the prepass would run them again.
# A differentiated kernel that uses sparse fields none of which has a gradient is translated in mode "adjoint"
# too (so a store to a pooled field does not put the activation's atomics in front of reverse_ad), with no prepass.
import weakref

from quadrants.data.field import HiddenField, hidden_field

# (weakref to a node's live activity array, its snapshot): refreshed before every sparse adjoint
_snapshots = []


def mode(tr):
    """None for a plain translation, "activate" or "adjoint" (see the file's comment)."""
    return tr.kernel_options.get("sparse_ad")


def has_sparse_grad(field):
    """Whether a field lives under sparse SNodes and has a placed gradient."""
    layout = getattr(field, "_layout", None)
    grad = getattr(field, "grad", None)
    return (layout is not None and layout.activity is not None and grad is not None
            and grad._place_node is not None and getattr(field, "_grad_of", None) is None)


def activates_on_access(tr, ref):
    """Whether an access to field `ref` activates its cells (a prepass's access to a sparse field with a gradient)."""
    return mode(tr) == "activate" and ref.activity is not None and has_sparse_grad(ref.field)


def stores_activate(tr):
    """Whether stores and qd.activate emit activation (not in the adjoint: the prepass activated)."""
    return mode(tr) != "adjoint"


def refuse(tr, what):
    """qd.append / qd.deactivate in the prepass: a clear error (the adjoint's replay drops deactivation's writes,
    and reverse_ad rejects append's use of an atomic's value, as without sparse gradients)."""
    if mode(tr) == "activate":
        raise tr.fail(f"kernel.grad() cannot differentiate a kernel that calls {what} on a sparse SNode while it "
                      "reads fields with gradients under sparse SNodes: the activation kernel run before the "
                      "adjoint would run it again",
                      hint=f"move {what} into a kernel of its own, outside the differentiated ones.", kind="type")


def activity_array(tr, snode, attr):
    """The activity array `attr` (_mask, _slots or _lengths) of `snode` that struct-fors and is_active read: in
    autodiff modes, its snapshot (made on first use from the live array, refreshed by refresh_snapshots())."""
    live = getattr(snode, attr)
    if mode(tr) is None:
        return live
    snapshots = snode.__dict__.setdefault("_ad_snapshots", {})
    snapshot = snapshots.get(attr)
    if snapshot is None or snapshot._array.released:
        snapshot = snapshots[attr] = hidden_field(live.dtype, live.shape)
        snapshot._array.copy_from(live._array, "copy_from", parallel=True)
        _snapshots.append((weakref.ref(live), snapshot))
    return snapshot


def refresh_snapshots():
    """Copies every live activity array into its snapshot (before an adjoint over sparse fields and its prepass)."""
    alive = []
    for ref, snapshot in _snapshots:
        live = ref()
        if live is None or live._array.released or snapshot._array.released:
            continue
        snapshot._array.copy_from(live._array, "copy_from", parallel=True)
        alive.append((ref, snapshot))
    _snapshots[:] = alive


# ---- the prepass: writes dropped ------------------------------------------------------------------------
def drop_writes(tr):
    """In mode "activate": removes from the translated body every store and atomic into an array that is not
    an SNode's activity (HiddenField), and print/assert; an atomic whose value is used becomes a load."""
    if mode(tr) != "activate":
        return
    keep = {ref.name for ref, container in zip(tr.global_refs.values(), tr.globals)
            if isinstance(container, HiddenField)}
    _filter(tr.builder.top(), keep)


def _filter(stmts, keep):
    kept = []
    for stmt in stmts:
        words = stmt.head.split(" ", 3)
        if words[0] in ("print", "assert"):
            continue
        if words[0] == "store" and words[1] not in keep:
            continue
        if words[0] == "eval" and words[1] == "(atomic" and words[3].split(" ", 1)[0] not in keep:
            continue
        stmt.head = _atomics_as_loads(stmt.head, keep)
        for block in stmt.blocks:
            block[:] = _filter(block, keep)
        kept.append(stmt)
    stmts[:] = kept
    return kept


def _atomics_as_loads(text, keep):
    """`(atomic OP NAME (I...) (E...) VALUE)` into a program array becomes `(load NAME (I...) (E...))`:
    the prepass must not write it (the adjoint rejects using an atomic's value, with its own message)."""
    start = text.find("(atomic ")
    while start >= 0:
        _, _, name, rest = text[start + 1:].split(" ", 3)
        if name not in keep:
            index_end = _group_end(rest, 0)
            element_end = _group_end(rest, index_end + 1)
            end = _group_end(text, start)
            text = f"{text[:start]}(load {name} {rest[:element_end]}){text[end:]}"
        start = text.find("(atomic ", start + 1)
    return text


def _group_end(text, start):
    """The index just past the parenthesized group that opens at text[start] (IR index lists hold no strings)."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k + 1
    raise AssertionError(f"_group_end(): unbalanced IR text {text!r}")
