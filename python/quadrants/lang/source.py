# python/quadrants/lang/source.py: a kernel's or func's parsed source, with positions mapped back to its file.
import ast
import inspect
import textwrap

from .errors import QuadrantsSyntaxError, QuadrantsTypeError


class FunctionSource:
    """The AST of one Python function; node positions are made absolute in the file.

    Lines are shifted by the function's first line and columns by the indentation that dedent
    removed, so every position reported to the user (and written into `loc`) is the file's own.
    """

    def __init__(self, fn):
        self.fn = fn
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except OSError as exc:
            raise QuadrantsSyntaxError(
                f"The source of '{fn.__qualname__}' is not available, so it cannot be compiled as a kernel.",
                self.filename,
                hint="define kernels and funcs in a .py file, not in an interactive prompt or exec().",
            ) from exc
        self.file_lines = {first_line + k: text for k, text in enumerate(lines)}
        raw = "".join(lines)
        dedented = textwrap.dedent(raw)
        indent = _indent_width(raw) - _indent_width(dedented)
        tree = ast.parse(dedented)
        for node in ast.walk(tree):
            if hasattr(node, "lineno"):
                node.lineno += first_line - 1
                node.col_offset += indent
        self.tree = tree.body[0]
        if not isinstance(self.tree, ast.FunctionDef):
            raise QuadrantsSyntaxError(f"'{fn.__qualname__}' is not a plain function definition.", self.filename)

    def source_line(self, line):
        """The text of a file line, or '' when it lies outside this function."""
        return self.file_lines.get(line, "")

    def error(self, node, message, hint=None, kind="syntax"):
        """Builds (does not raise) the user error for `node`; kind is 'syntax' or 'type'."""
        line = getattr(node, "lineno", 0) if node is not None else 0
        col = getattr(node, "col_offset", 0) if node is not None else 0
        cls = QuadrantsTypeError if kind == "type" else QuadrantsSyntaxError
        return cls(message, self.filename, line, col, self.source_line(line), hint)


def _indent_width(text):
    first = next((line for line in text.splitlines() if line.strip()), "")
    return len(first) - len(first.lstrip())


_cache = {}


def function_source(fn):
    """Parses `fn` once; later calls share the result (the AST is never mutated after parsing)."""
    src = _cache.get(fn)
    if src is None:
        src = _cache[fn] = FunctionSource(fn)
    return src
