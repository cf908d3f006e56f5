# python/quadrants/lang/_wrap_inspect.py: upstream's quadrants.lang._wrap_inspect: where a kernel's or func's source
# lies, as the translation cache fingerprints it (kernels/translation_inputs.py's source_lines).
"""Lines are 1-based and inclusive, from the first decorator to the function's last line: the lines whose digest the
translation cache checks before it uses a cached translation. Upstream finds them with `inspect`; the range is the
same for functions defined in files. A function without a source file raises OSError, as inspect does."""
from quadrants.kernels.fastcache_records import FunctionSourceInfo
from quadrants.kernels.translation_inputs import python_function, source_lines


def get_source_info_and_src(fn):
    """(FunctionSourceInfo, its lines with their newlines) of a function, @qd.func or @qd.kernel."""
    found = python_function(fn) or python_function(getattr(fn, "fn", None))  # a kernel holds its function as .fn
    if found is None:
        raise TypeError(f"_wrap_inspect: expected a Python function, a @qd.func or a @qd.kernel, got "
                        f"{type(fn).__name__}")
    filename, first, last, lines = source_lines(found)
    return FunctionSourceInfo(found.__name__, filename, first, last), lines


def getsourcelines(fn):
    """(lines, first line number), as inspect.getsourcelines."""
    info, src = get_source_info_and_src(fn)
    return src, info.start_lineno


def getsourcefile(fn):
    return get_source_info_and_src(fn)[0].filepath


__all__ = ["FunctionSourceInfo", "get_source_info_and_src", "getsourcelines", "getsourcefile"]
