# python/quadrants/base/errors.py: the exception classes, with upstream Quadrants' names and bases.
#
# The bases follow upstream, so `except TypeError` or `pytest.raises(qd.QuadrantsSyntaxError)` written
# for Quadrants catch ours: compile errors derive from QuadrantsCompilationError and from the builtin
# error of the same kind; run-time errors derive from RuntimeError.


class QuadrantsCompilationError(Exception):
    """A user error in a kernel's source; str() gives the location, the line, a caret and the fix.

    Built with a message alone (as user code and upstream do), str() is just the message.
    """

    def __init__(self, message, filename=None, line=0, col=0, source_line="", hint=None, frames=()):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.hint = hint
        self.frames = tuple(frames)  # SourceFrames, kernel first: where each inlined func was called, and the error
        self._rendered = self._render()
        super().__init__(self._rendered)

    def __str__(self):
        # SyntaxError's own __str__ would append "(filename)"; every subclass shows the rendered text.
        return self._rendered

    def _render(self):
        if self.filename is None and not self.line:
            parts = [str(self.message)]
        else:
            parts = [f"{self.filename or '<unknown>'}:{self.line}:{self.col + 1}: {self.message}"]
        for frame in self.frames:
            parts.append(frame.render())
        if self.frames:  # as upstream, the message closes the trace too, right under the failing line's carets
            parts.append(str(self.message))
        if not self.frames and self.source_line:
            # The caret must sit under the column even when the line is indented with tabs.
            stripped = self.source_line.rstrip("\n")
            prefix = "".join(c if c == "\t" else " " for c in stripped[: self.col])
            parts.append("    " + stripped)
            parts.append("    " + prefix + "^")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class SourceFrame:
    """One function's place in a compile error, shown as upstream shows it: `File "F", line N, in FUNC:`, the
    line (tabs expanded to 4, wrapped at 80 columns) and carets under the node's extent on that line."""

    WIDTH = 80

    def __init__(self, filename, line, function, text, col, end_col):
        self.filename, self.line, self.function = filename, line, function
        self.text, self.col, self.end_col = text, col, end_col

    def render(self):
        raw = self.text.rstrip("\n")
        col = len(raw[: self.col].expandtabs(4))
        end = len(raw[: self.end_col].expandtabs(4)) if self.end_col is not None else len(raw.expandtabs(4))
        text = raw.expandtabs(4)
        end = max(end, col + 1)
        lines = [f'File "{self.filename}", line {self.line}, in {self.function}:']
        for start in range(0, max(len(text), 1), self.WIDTH):
            lines.append(text[start:start + self.WIDTH])
            lo, hi = max(col, start), min(end, start + self.WIDTH)
            if lo < hi:
                lines.append(" " * (lo - start) + "^" * (hi - lo))
        return "\n".join(lines)


class QuadrantsSyntaxError(QuadrantsCompilationError, SyntaxError):
    """Python syntax that kernels do not support, or a construct used where it is not allowed."""

    def __init__(self, message, filename=None, line=0, col=0, source_line="", hint=None, frames=()):
        super().__init__(message, filename, line, col, source_line, hint, frames)
        # Python prints a SyntaxError from these fields (file, line, source, caret) and `msg`, so an
        # uncaught one shows the location once, in Python's own format; the funcs' call sites follow msg.
        callers = "".join("\n" + frame.render() for frame in self.frames[:-1])
        self.msg = str(message) + callers + (f"\nhint: {hint}" if hint else "")
        self.lineno = line or None
        self.offset = col + 1 if line else None
        self.text = source_line or None


class KernelArgumentError(QuadrantsSyntaxError, TypeError):
    """Wrong arguments in a kernel call: missing, extra or unknown ones. Upstream raises QuadrantsSyntaxError;
    it is a TypeError too, as for any Python call."""


class QuadrantsNameError(QuadrantsCompilationError, NameError):
    """A name a kernel uses is not defined."""


class QuadrantsIndexError(QuadrantsCompilationError, IndexError):
    """An index a kernel uses is wrong at compile time (count of indices, constant out of range)."""


class QuadrantsTypeError(QuadrantsCompilationError, TypeError):
    """A value of the wrong type or shape inside a kernel."""


class QuadrantsValueError(QuadrantsCompilationError, ValueError):
    """A compile-time value a kernel cannot use (a generator named in a kernel); upstream raises ValueError."""


class QuadrantsRuntimeError(RuntimeError):
    """A compiled program could not run."""


class InvalidShapeTypeError(QuadrantsRuntimeError, TypeError):
    """A container shape that is not ints: upstream's QuadrantsRuntimeError, and the TypeError of Python."""


class InvalidShapeValueError(QuadrantsRuntimeError, ValueError):
    """A container shape with a negative or too large extent: upstream's QuadrantsRuntimeError, and a ValueError."""


class InvalidArgumentValueError(ValueError, TypeError):
    """An array argument whose dtype, dimensions or element shape do not fit its annotation. Upstream raises
    ValueError ("Invalid value for argument ...") for most of these and TypeError for a scalar dtype; this is both."""


class QuadrantsAssertionError(QuadrantsRuntimeError, AssertionError):
    """An assertion in a kernel compiled with qd.init(debug=True) failed, or an AD stack overflowed."""


class QuadrantsRuntimeTypeError(QuadrantsRuntimeError, TypeError):
    """A kernel argument or return value cannot be converted to the declared type."""

    @staticmethod
    def get(position, needed, provided):
        return QuadrantsRuntimeTypeError(
            f"Argument {position} (type={provided}) cannot be converted into required type {needed}"
        )

    @staticmethod
    def get_ret(needed, provided):
        return QuadrantsRuntimeTypeError(f"Return (type={provided}) cannot be converted into required type {needed}")


class QuadrantsOutOfBoundError(QuadrantsAssertionError, IndexError):
    """An index out of an array's shape in a kernel compiled with bounds checks.

    Upstream raises QuadrantsAssertionError here; this class is also an IndexError, which quadrants
    raised before, so handlers written for either catch it.
    """


# What `from quadrants.lang.errors import *` and the top level export, as upstream's lang.exception does
# (QuadrantsIndexError and QuadrantsOutOfBoundError stay importable from here).
__all__ = [
    "QuadrantsAssertionError",
    "QuadrantsCompilationError",
    "QuadrantsNameError",
    "QuadrantsRuntimeError",
    "QuadrantsRuntimeTypeError",
    "QuadrantsSyntaxError",
    "QuadrantsTypeError",
]


class SwizzleValueError(QuadrantsRuntimeError, ValueError):
    """A swizzle assigned the wrong number of values in Python scope: upstream's QuadrantsRuntimeError, and a
    ValueError."""
