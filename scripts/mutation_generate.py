#!/usr/bin/env python3
# scripts/mutation_generate.py: generates small mutants (operator and comparison flips, off-by-one constants,
# dropped statements) of the Python frontend and the C++ passes, for scripts/mutation_check.py --generated.
"""A mutant generator of our own: mutmut only knows Python, and the passes are C++.

Each mutant is one edit of one file: (path, offset, old, new), where `old` is the exact text at that byte
offset of the file as committed. The kinds:

    compare    <  <=  >  >=  ==  !=  flipped to their off-by-one or negated twin; `is`/`in` negated
    boolop     and <-> or (Python), && <-> || (C++)
    arith      + <-> -, * -> +, // -> / (Python), << <-> >>
    const      an integer literal n -> n + 1 (off-by-one in a bound, a size, an index); True <-> False
    negate     `not x` -> `x` (Python), `!x` -> `x` (C++)
    drop       a whole simple statement -> `pass` (Python; line count kept) or `;` (C++)

Python mutants come from the AST (positions from the parser, so strings and comments are never touched);
C++ mutants from the tokens of code lines (comments, string literals and preprocessor lines skipped), where
the house style's spaces around binary operators tell them from template brackets. Files are chosen by
globs, relative to the repository root, so moving the package into subfolders only changes the globs.

    python3 scripts/mutation_generate.py --list 'python/quadrants/frontend/*.py' 'src/passes/*.cpp' | head
"""
import argparse
import ast
import glob
import hashlib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# The Python frontend (the frontend floor and the type and name tables it reads) and the C++ passes.
DEFAULT_GLOBS = ["python/quadrants/frontend/*.py", "python/quadrants/base/dtypes.py", "python/quadrants/data/tensor.py",
                 "python/quadrants/types/*.py", "src/passes/*.cpp"]


@dataclass(frozen=True)
class GeneratedMutant:
    path: str  # relative to the repository root
    offset: int  # byte offset of `old` in the file
    old: str
    new: str
    kind: str
    line: int

    @property
    def name(self):
        digest = hashlib.sha1(f"{self.path}:{self.offset}:{self.old}:{self.new}".encode()).hexdigest()[:8]
        return f"{Path(self.path).stem}:{self.line}:{self.kind}:{digest}"

    @property
    def language(self):
        return "python" if self.path.endswith(".py") else "cpp"

    def describe(self):
        old, new = (t.strip().replace("\n", " ")[:60] for t in (self.old, self.new))
        return f"{self.path}:{self.line} {self.kind}: `{old}` -> `{new}`"

    def apply(self, text):
        """The file's text with this mutant applied; ValueError when the file no longer has `old` there."""
        data = text.encode()
        if data[self.offset:self.offset + len(self.old.encode())] != self.old.encode():
            raise ValueError(f"{self.path} changed: `{self.old}` is not at byte {self.offset}")
        return (data[:self.offset] + self.new.encode() + data[self.offset + len(self.old.encode()):]).decode()


# ---- Python ----

COMPARE_FLIPS = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
                 ast.Is: "is not", ast.IsNot: "is", ast.In: "not in", ast.NotIn: "in"}
COMPARE_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
                ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
ARITH_FLIPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "+"), ast.FloorDiv: ("//", "/"),
               ast.LShift: ("<<", ">>"), ast.RShift: (">>", "<<")}


class _LineOffsets:
    """(line, column) in characters -> byte offset in the file."""

    def __init__(self, text):
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line.encode()))

    def __call__(self, line, col):
        return self.starts[line - 1] + len(self.lines[line - 1][:col].encode())


def _operator_between(text_lines, start, end, op_text):
    """The (line, col) of `op_text` between two operands' (line, col) positions, when nothing else but blanks
    and parentheses lies between them; else None."""
    (l1, c1), (l2, c2) = start, end
    if l1 != l2:
        return None  # an operator on a continuation line: skipped, rare
    between = text_lines[l1 - 1][c1:c2]
    stripped = between.strip().strip("()").strip()
    if stripped != op_text:
        return None
    return l1, c1 + between.index(op_text)


def python_mutants(path, text):
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    offset_of = _LineOffsets(text)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []

    def add(line, col, old, new, kind):
        out.append(GeneratedMutant(path, offset_of(line, col), old, new, kind, line))

    def between(left, right, op_text, new, kind):
        found = _operator_between(lines, (left.end_lineno, left.end_col_offset), (right.lineno, right.col_offset),
                                  op_text)
        if found:
            add(*found, op_text, new, kind)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for k, op in enumerate(node.ops):
                between(operands[k], operands[k + 1], COMPARE_TEXT[type(op)], COMPARE_FLIPS[type(op)], "compare")
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITH_FLIPS:
            old, new = ARITH_FLIPS[type(node.op)]
            between(node.left, node.right, old, new, "arith")
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for a, b in zip(node.values, node.values[1:]):
                between(a, b, old, new, "boolop")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and node.lineno == node.operand.lineno:
            add(node.lineno, node.col_offset, lines[node.lineno - 1][node.col_offset:node.operand.col_offset], "",
                "negate")
        elif isinstance(node, ast.Constant) and id(node) not in docstrings and node.lineno == node.end_lineno:
            source = lines[node.lineno - 1][node.col_offset:node.end_col_offset]
            if node.value is True or node.value is False:
                add(node.lineno, node.col_offset, source, str(not node.value), "const")
            elif type(node.value) is int and source.isdigit():
                add(node.lineno, node.col_offset, source, str(node.value + 1), "const")
        elif isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise,
                               ast.Continue, ast.Break, ast.Delete)) and id(getattr(node, "value", None)) not in docstrings:
            first, last = node.lineno, node.end_lineno
            if lines[first - 1][:node.col_offset].strip():
                continue  # shares its line with other code (`if x: y = 1`)
            old = "".join(lines[first - 1:last])[node.col_offset:]
            old = old[:len(old) - (len(lines[last - 1]) - node.end_col_offset)]
            add(first, node.col_offset, old, "pass" + "\n" * (last - first), "drop")
    return out


# ---- C++ ----

CPP_BINARY = [(" <= ", " < "), (" >= ", " > "), (" < ", " <= "), (" > ", " >= "), (" == ", " != "),
              (" != ", " == "), (" && ", " || "), (" || ", " && "), (" + ", " - "), (" - ", " + "),
              (" * ", " + "), (" << ", " >> "), (" >> ", " << ")]
CPP_KIND = {"<": "compare", ">": "compare", "=": "compare", "!": "compare", "&": "boolop", "|": "boolop"}


def _cpp_code_mask(text):
    """The text with comments, string and character literals and preprocessor lines blanked (same length)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i) or (text[i] == "#" and text[:i].rstrip(" \t").endswith(("\n", ""))
                                        and (i == 0 or text[text.rfind("\n", 0, i) + 1:i].strip() == "")):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"(', i):
            j = text.find(')"', i + 3)
            j = n if j < 0 else j + 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


_STATEMENT = re.compile(r"^(\s*)((?:[A-Za-z_][\w.]*(?:->|::|\.)?)+(?:\[[^\]]*\])?\s*(?:\(.*\)|[+\-*/|&^]?=\s.*));\s*$")
_INT = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


def cpp_mutants(path, text):
    code = _cpp_code_mask(text)
    lines, code_lines = text.splitlines(keepends=True), code.splitlines(keepends=True)
    offset_of = _LineOffsets(text)
    out = []
    for number, (line, masked) in enumerate(zip(lines, code_lines), start=1):
        if not masked.strip() or masked.lstrip().startswith(("#include", "template", "namespace", "//")):
            continue
        for old, new in CPP_BINARY:
            for match in re.finditer(re.escape(old), masked):
                if old.strip() in ("<", ">") and ("<<" in masked[match.start() - 1:match.end() + 1]):
                    continue
                kind = CPP_KIND.get(old.strip()[0], "arith")
                out.append(GeneratedMutant(path, offset_of(number, match.start()), old, new, kind, number))
        for match in re.finditer(r"!(?!=)(?=[A-Za-z_(])", masked):
            out.append(GeneratedMutant(path, offset_of(number, match.start()), "!", "", "negate", number))
        for word, new in (("true", "false"), ("false", "true")):
            for match in re.finditer(rf"\b{word}\b", masked):
                out.append(GeneratedMutant(path, offset_of(number, match.start()), word, new, "const", number))
        for match in _INT.finditer(masked):
            value = match.group(1)
            out.append(GeneratedMutant(path, offset_of(number, match.start()), value, str(int(value) + 1), "const",
                                       number))
        statement = _STATEMENT.match(masked.rstrip("\n"))
        previous = code_lines[number - 2].rstrip() if number > 1 else ""
        if statement and previous.endswith((";", "{", "}")) and not statement.group(2).startswith(("return", "case")):
            indent = len(statement.group(1))
            body = line.rstrip("\n")[indent:]
            out.append(GeneratedMutant(path, offset_of(number, indent), body, ";", "drop", number))
    return out


def generate(globs, repo=REPO):
    """Every mutant of the files matching the globs, in a stable order."""
    paths = sorted({str(Path(p).relative_to(repo)) for g in globs for p in glob.glob(str(repo / g), recursive=True)
                    if Path(p).is_file()})
    mutants = []
    for path in paths:
        text = (repo / path).read_text()
        found = python_mutants(path, text) if path.endswith(".py") else cpp_mutants(path, text)
        if path.endswith(".py"):
            found = [m for m in found if _still_parses(m, text)]
        mutants.extend(sorted(set(found), key=lambda m: (m.offset, m.kind, m.new)))
    return mutants


def _still_parses(mutant, text):
    try:
        ast.parse(mutant.apply(text))
        return True
    except (SyntaxError, ValueError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("globs", nargs="*", default=DEFAULT_GLOBS)
    parser.add_argument("--list", action="store_true", help="print every mutant")
    args = parser.parse_args()
    mutants = generate(args.globs)
    counts = {}
    for m in mutants:
        counts[(m.language, m.kind)] = counts.get((m.language, m.kind), 0) + 1
    if args.list:
        for m in mutants:
            print(m.name, m.describe())
    print(f"{len(mutants)} mutants: " + ", ".join(f"{lang} {kind} {n}" for (lang, kind), n in sorted(counts.items())))


if __name__ == "__main__":
    main()
