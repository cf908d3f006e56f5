# python/quadrants/frontend/source.py: a kernel's or func's parsed source, with positions mapped back to its file.
import ast
import linecache

from quadrants.base.errors import (
    QuadrantsIndexError,
    QuadrantsNameError,
    QuadrantsSyntaxError,
    QuadrantsTypeError,
    QuadrantsValueError,
    SourceFrame,
)

_ERROR_CLASSES = {"type": QuadrantsTypeError, "name": QuadrantsNameError, "value": QuadrantsValueError,
                  "index": QuadrantsIndexError}


class FunctionSource:
    """The AST of one Python function, taken from a parse of its whole file (cached per file).

    Positions are therefore the file's own, and finding the function costs a dictionary lookup once
    the file is parsed; inspect.getsourcelines would tokenize the file again for every function.
    """

    def __init__(self, fn):
        self.fn = fn
        code = fn.__code__
        self.filename = code.co_filename
        found = _functions_in(self.filename).get((code.co_firstlineno, fn.__name__))
        if fn.__name__ == "<lambda>":
            found = _lambda_in(found, code)
        if found is None:
            raise QuadrantsSyntaxError(
                f"The source of '{fn.__qualname__}' is not available, so it cannot be compiled as a kernel.",
                self.filename,
                code.co_firstlineno,
                hint="define kernels and funcs in a .py file, not in an interactive prompt or exec().",
            )
        self.tree, lines = found
        if not isinstance(self.tree, ast.FunctionDef):
            raise QuadrantsSyntaxError(f"'{fn.__qualname__}' is not a plain function definition.", self.filename)
        first = code.co_firstlineno
        self.file_lines = {line: lines[line - 1] for line in range(first, self.tree.end_lineno + 1)}

    def source_line(self, line):
        """The text of a file line, or '' when it lies outside this function."""
        return self.file_lines.get(line, "")

    def error(self, node, message, hint=None, kind="syntax", callers=()):
        """Builds (does not raise) the user error for `node`; kind is 'syntax', 'type', 'name', 'value' or
        'index'. callers: (FunctionSource, call node) of each func call that led here, kernel first."""
        line = getattr(node, "lineno", 0) if node is not None else 0
        col = getattr(node, "col_offset", 0) if node is not None else 0
        cls = _ERROR_CLASSES.get(kind, QuadrantsSyntaxError)
        frames = [source.frame(call) for source, call in callers] + ([self.frame(node)] if line else [])
        return cls(message, self.filename, line, col, self.source_line(line), hint, frames)

    def frame(self, node):
        """The SourceFrame of `node`: its line, with carets under its extent on that line (to the line's end
        when it spans several, as a statement with a body does)."""
        line = node.lineno
        same_line = getattr(node, "end_lineno", line) == line
        end_col = getattr(node, "end_col_offset", None) if same_line else None
        return SourceFrame(self.filename, line, self.fn.__name__, self.source_line(line), node.col_offset, end_col)


_files = {}  # filename -> {(first line, name): (FunctionDef node, the file's lines)}


def _functions_in(filename):
    """Every function definition of a file, keyed as code objects name them (co_firstlineno is the
    line of the first decorator). Empty for sources that are not files (exec, the REPL)."""
    found = _files.get(filename)
    if found is None:
        lines = linecache.getlines(filename)
        found = {}
        if lines:
            for node in ast.walk(ast.parse("".join(lines), filename)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                    found[(first, node.name)] = (node, lines)
                elif isinstance(node, ast.Lambda):  # every lambda of a line, for _lambda_in to choose from
                    found.setdefault((node.lineno, "<lambda>"), ([], lines))[0].append(node)
        _files[filename] = found
    return found


def first_position(code):
    """(line, column) of a code object's first source position on its first line, or None: it lies in a lambda's
    own body, so it tells apart lambdas that share a line (here and in the translation cache's key)."""
    return next(((line, col) for line, _, col, _ in code.co_positions() if line == code.co_firstlineno and col), None)


def _lambda_in(found, code):
    """The lambda of `code` among the lambdas that start on its line, as a FunctionDef returning its body.

    A line may hold several lambdas (a list of them, nested ones); the code's first source position lies
    in its own body, so the innermost lambda whose body spans that position is the one.
    """
    if found is None:
        return None
    candidates, lines = found
    line, col = first_position(code) or (None, None)
    spans = [n for n in candidates if line is not None and _spans(n.body, line, col)]
    if not spans:
        return None
    node = min(spans, key=lambda n: (n.body.end_lineno - n.body.lineno, n.body.end_col_offset - n.body.col_offset))
    body = ast.Return(node.body)
    ast.copy_location(body, node.body)
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    tree = ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None, **extra)
    ast.copy_location(tree, node)
    tree.end_lineno, tree.end_col_offset = node.end_lineno, node.end_col_offset
    return tree, lines


def _spans(node, line, col):
    start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    return start <= (line, col) < end


_cache = {}


def function_source(fn):
    """Parses `fn` once; later calls share the result (the AST is never mutated after parsing)."""
    src = _cache.get(fn)
    if src is None:
        src = _cache[fn] = FunctionSource(fn)
    return src
