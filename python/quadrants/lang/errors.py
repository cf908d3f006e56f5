# python/quadrants/lang/errors.py: user errors of the kernel language, shown with file:line, the source line and a caret.


class QuadrantsCompilationError(Exception):
    """A user error in a kernel's source; str() gives the location, the line, a caret and the fix."""

    def __init__(self, message, filename="<unknown>", line=0, col=0, source_line="", hint=None):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.hint = hint
        super().__init__(self._render())

    def _render(self):
        parts = [f"{self.filename}:{self.line}:{self.col + 1}: {self.message}"]
        if self.source_line:
            # The caret must sit under the column even when the line is indented with tabs.
            stripped = self.source_line.rstrip("\n")
            prefix = "".join(c if c == "\t" else " " for c in stripped[: self.col])
            parts.append("    " + stripped)
            parts.append("    " + prefix + "^")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class QuadrantsSyntaxError(QuadrantsCompilationError):
    """Python syntax that kernels do not support, or a construct used where it is not allowed."""


class QuadrantsTypeError(QuadrantsCompilationError, TypeError):
    """A value of the wrong type or shape inside a kernel."""
