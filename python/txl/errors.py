"""Errors the txl frontend reports to kernel authors.

``CompilationError`` is the only exception that leaves the frontend: it names the kernel's ``file:line:col``,
shows the source line with a caret under the offending expression, says what was expected and how to fix it.
Language builtins raise the lighter ``SemanticError`` (no location: a builtin does not know where it was called
from); the code generator catches it and re-raises it as a ``CompilationError`` at the node being compiled.
"""


class SemanticError(Exception):
    """A user error found by a builtin. ``fix`` says how to repair it (printed after the message)."""

    def __init__(self, message, fix=None):
        super().__init__(message)
        self.message = message
        self.fix = fix


class UnsupportedError(SemanticError):
    """A construct txl does not support (yet): the message names it and, where there is one, the alternative."""


class ShapeMismatchError(SemanticError):
    """Two operands whose shapes do not broadcast (kept separate so the code generator can name the operand to
    reshape)."""

    def __init__(self, message, lhs_shape, rhs_shape, fix=None):
        super().__init__(message, fix)
        self.lhs_shape = list(lhs_shape)
        self.rhs_shape = list(rhs_shape)


class CompilationError(Exception):
    """A user error in a @txl.jit function, located in its source.

    Attributes: ``file``, ``line`` (1-based), ``col`` (1-based), ``message``, ``fix``, ``source_line``.
    """

    def __init__(self, message, *, file="<unknown>", line=None, col=None, source_line=None, fix=None,
                 kernel=None):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = source_line
        self.fix = fix
        self.kernel = kernel
        super().__init__(self._format())

    def _format(self):
        where = self.file
        if self.line is not None:
            where += ":%d" % self.line
            if self.col is not None:
                where += ":%d" % self.col
        head = "%s: error: %s" % (where, self.message)
        if self.kernel:
            head += " (in @txl.jit function %s)" % self.kernel
        lines = [head]
        if self.source_line is not None:
            src = self.source_line.rstrip("\n")
            stripped = src.lstrip()
            lead = len(src) - len(stripped)
            lines.append("    " + stripped)
            if self.col is not None and self.col - 1 >= lead:
                lines.append("    " + " " * (self.col - 1 - lead) + "^")
        if self.fix:
            lines.append("fix: " + self.fix)
        return "\n".join(lines)

    def __reduce__(self):
        # Keep the exception picklable (pytest-xdist, multiprocessing compile workers).
        return (_rebuild, (self.message, self.file, self.line, self.col, self.source_line, self.fix, self.kernel))


def _rebuild(message, file, line, col, source_line, fix, kernel):
    return CompilationError(message, file=file, line=line, col=col, source_line=source_line, fix=fix,
                            kernel=kernel)
