# python/quadrants/lang/ir_builder.py: builds kernel IR text (docs/IR.md): expressions, statements, blocks, names.
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

    def reserve(self, name):
        self._used.add(name)

    def fresh(self, base):
        base = base if base not in _CPP_RESERVED else base + "_"
        name, k = base, 1
        while name in self._used:
            name = f"{base}_{k}"
            k += 1
        self._used.add(name)
        return name


class BlockBuilder:
    """A stack of statement lists: statements go to the innermost open block."""

    def __init__(self):
        self._blocks = [[]]
        self.loc = None

    def emit(self, head, blocks=(), loc=None):
        """Appends a statement; `loc` defaults to the position of the statement being translated."""
        self._blocks[-1].append(Stmt(head, blocks, loc or self.loc))

    def append(self, stmt):
        self._blocks[-1].append(stmt)

    def open(self):
        self._blocks.append([])

    def close(self):
        return self._blocks.pop()

    def top(self):
        return self._blocks[0]
