# python/quadrants/frontend/ir_builder.py: builds kernel IR text (docs/IR.md): expressions, statements, blocks, names.
import math


class Expr:
    """An IR expression as text. `side_effect` marks atomics, which must be evaluated exactly once."""

    __slots__ = ("text", "side_effect")

    def __init__(self, text, side_effect=False):
        self.text = text
        self.side_effect = side_effect

    def __repr__(self):
        return f"Expr({self.text})"


def const_text(value):
    """The IR literal for a Python bool/int/float; untyped so that it takes the kernel's defaults."""
    if isinstance(value, bool):
        return f"(const int {int(value)})"
    if isinstance(value, int):
        return f"(const int {int(value)})"  # int(): an IntEnum member formats as its name
    if math.isnan(value):
        return "(const float nan)"
    if math.isinf(value):
        return "(const float inf)" if value > 0 else "(const float -inf)"
    return f"(const float {float(value)!r})"


def string_text(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def name_clause(loop_name):
    """A parallel_for config's `(name "...")` for qd.loop_config(name=...) (docs/IR.md); "" for an unnamed loop."""
    return f" (name {string_text(loop_name)})" if loop_name else ""


class Stmt:
    """One IR statement: `(HEAD BLOCK...)`, optionally wrapped as `(loc LINE COL ...)`."""

    __slots__ = ("head", "blocks", "loc")

    def __init__(self, head, blocks=(), loc=None):
        self.head = head
        self.blocks = list(blocks)
        self.loc = loc

    def render(self, indent):
        text = "(" + self.head
        for block in self.blocks:
            text += " " + render_block(block, indent)
        text += ")"
        if self.loc is not None:
            text = f"(loc {self.loc[0]} {self.loc[1]} {text})"
        return text


def render_block(stmts, indent):
    if not stmts:
        return "()"
    pad = " " * (indent + 2)
    inner = "\n".join(pad + stmt.render(indent + 2) for stmt in stmts)
    return "(\n" + inner + "\n" + " " * indent + ")"


# Local names that C++ would reject as identifiers; the codegen may print locals verbatim.
_CPP_RESERVED = frozenset(
    "alignas alignof asm auto bool case catch char char16_t char32_t class const constexpr const_cast "
    "decltype default delete do double dynamic_cast enum explicit export extern float friend goto inline "
    "int long mutable namespace new noexcept nullptr operator private protected public register "
    "reinterpret_cast short signed sizeof static static_assert static_cast struct switch template this "
    "thread_local throw typedef typeid typename union unsigned using virtual void volatile wchar_t "
    "args ctx ret main".split()
)


class NameAllocator:
    """Gives every local, loop index and temporary of one kernel a distinct IR name.

    Names stay unique across sibling scopes and inlined funcs, so the C++ side never needs to
    reason about Python's scoping.
    """

    def __init__(self):
        self._used = set()
        # base -> the least suffix not yet known to be taken. Names are never released, so every suffix below it
        # stays taken, and probing from it finds the same name as probing from 1: without it, a kernel inlining
        # thousands of temporaries of one base (Genesis' collision kernel: 30,000 names) probed quadratically.
        self._next_suffix = {}

    def reserve(self, name):
        self._used.add(name)

    def fresh(self, base):
        base = base if base not in _CPP_RESERVED else base + "_"
        name = base
        if name in self._used:
            k = self._next_suffix.get(base, 1)
            name = f"{base}_{k}"
            while name in self._used:
                k += 1
                name = f"{base}_{k}"
            self._next_suffix[base] = k + 1
        self._used.add(name)
        return name


class BlockBuilder:
    """A stack of statement lists: statements go to the innermost open block.

    Each open block also keeps the arrays that qd.stop_grad() named in it: as upstream, that holds for the
    whole block (statements before the call too) and the blocks nested in it, so their loads are wrapped
    in `(un stop_grad ...)` when the block is closed (the kernel body: whenever it is read).
    """

    def __init__(self):
        self._blocks = [[]]
        self._stopped = [set()]
        self.loc = None

    def stop_gradient(self, array_name):
        """Loads of `array_name` in the innermost open block pass no gradient (see the class comment)."""
        self._stopped[-1].add(array_name)

    def emit(self, head, blocks=(), loc=None):
        """Appends a statement and returns it; `loc` defaults to the position of the statement being translated."""
        stmt = Stmt(head, blocks, loc or self.loc)
        self._blocks[-1].append(stmt)
        return stmt

    def append(self, stmt):
        self._blocks[-1].append(stmt)

    def open(self):
        self._blocks.append([])
        self._stopped.append(set())

    def close(self):
        block = self._blocks.pop()
        _stop_gradients(block, self._stopped.pop())
        return block

    def top(self):
        _stop_gradients(self._blocks[0], self._stopped[0])  # idempotent: wrapped loads are not wrapped again
        return self._blocks[0]


_STOP_GRAD_HEAD = "(un stop_grad "


def _stop_gradients(stmts, names):
    """Wraps every `(load NAME ...)` of the statements (and their nested blocks) for NAME in names."""
    if not names:
        return
    for stmt in stmts:
        stmt.head = _wrap_loads(stmt.head, names)
        for block in stmt.blocks:
            _stop_gradients(block, names)


def _wrap_loads(text, names):
    out, k = [], 0
    for start in _load_starts(text):
        end = _sexpr_end(text, start)
        if start < k:  # inside a load already copied (its indices are integers: nothing to stop)
            continue
        name = text[start + 6:].split(" ", 1)[0]
        out.append(text[k:start])
        load = text[start:end]
        wrap = name in names and not text.endswith(_STOP_GRAD_HEAD, 0, start)
        out.append(_STOP_GRAD_HEAD + load + ")" if wrap else load)
        k = end
    return "".join(out) + text[k:]


def _load_starts(text):
    """Where each `(load ` of the text opens, outside string literals."""
    k, in_string = 0, False
    while k < len(text):
        c = text[k]
        if in_string:
            k += 1 if c == "\\" else 0
            in_string = c != '"'
        elif c == '"':
            in_string = True
        elif text.startswith("(load ", k):
            yield k
        k += 1


def _sexpr_end(text, start):
    """The index just past the parenthesized expression that opens at text[start] (strings skipped)."""
    depth, k, in_string = 0, start, False
    while k < len(text):
        c = text[k]
        if in_string:
            if c == "\\":
                k += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    raise AssertionError(f"_sexpr_end(): unbalanced IR text {text!r}")


def local_name(value):
    """The name of the caller's local that `value` reads (`(var NAME)`), else None."""
    if isinstance(value, Expr) and value.text.startswith("(var ") and " " not in value.text[5:-1]:
        return value.text[5:-1]
    return None
