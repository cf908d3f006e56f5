# python/quadrants/lang/_wrap_inspect.py: upstream's quadrants.lang._wrap_inspect: where a kernel's or func's source
# lies, as the translation cache fingerprints it (kernels/translation_inputs.py).
"""`get_source_info_and_src(fn)` gives the file, first and last line (1-based, inclusive) and the text of those lines:
from the first decorator to the function's last line, the lines whose digest the translation cache checks before it
uses a cached translation. Upstream finds them with `inspect`; the frontend here parses the whole file
(frontend/source.py), and the range is the same for functions defined in files. A function without a source file
(typed at a prompt, made by exec) raises OSError, as inspect does."""
import dataclasses

from quadrants.kernels.translation_inputs import file_lines, last_line, python_function


@dataclasses.dataclass(frozen=True)
class FunctionSourceInfo:
    """A function's place in its file: lines start_lineno..end_lineno (1-based, inclusive)."""

    function_name: str
    filepath: str
    start_lineno: int
    end_lineno: int


def _plain_function(fn):
    found = python_function(fn)
    if found is None:
        found = python_function(getattr(fn, "fn", None))  # a kernel object holds its function as .fn
    if found is None:
        raise TypeError(f"_wrap_inspect: expected a Python function, a @qd.func or a @qd.kernel, got "
                        f"{type(fn).__name__}")
    return found


def get_source_info_and_src(fn):
    """(FunctionSourceInfo, its lines with their newlines) of a function as this process read its file."""
    fn = _plain_function(fn)
    code = fn.__code__
    lines = file_lines(code.co_filename)
    if not lines or code.co_firstlineno > len(lines):
        raise OSError(f"Cannot find the source of {fn.__qualname__}: {code.co_filename} cannot be read.")
    first, last = code.co_firstlineno, last_line(code, lines)
    src = [line.decode("utf-8") + "\n" for line in lines[first - 1:last]]
    return FunctionSourceInfo(fn.__name__, code.co_filename, first, last), src


def getsourcelines(fn):
    """(lines, first line number), as inspect.getsourcelines."""
    info, src = get_source_info_and_src(fn)
    return src, info.start_lineno


def getsourcefile(fn):
    return get_source_info_and_src(fn)[0].filepath


__all__ = ["FunctionSourceInfo", "get_source_info_and_src", "getsourcelines", "getsourcefile"]
