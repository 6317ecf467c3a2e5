"""``@txl.jit``: a Python function that is compiled to the txl dialect when it is launched or compiled.

A ``JITFunction`` only records the function, its source and its parameters; the frontend
(``txl.compiler.code_generator``) turns the source into txl IR, ``txl.compile`` runs the compiler on it and
``kernel[grid](*args)`` specialises, compiles (through the cache) and launches.
"""

import inspect
import textwrap


class JITFunction:
    """A kernel or device function written in the txl DSL."""

    def __init__(self, fn, *, do_not_specialize=(), debug=False, noinline=False, diff_mode=None,
                 diff_select=None, log_dir=None):
        if not inspect.isfunction(fn):
            raise TypeError("@txl.jit decorates a Python function, got %r" % (fn,))
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        try:
            lines, self.starting_line_number = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise TypeError("@txl.jit needs the source of %s (define it in a file, not in an interactive "
                            "session): %s" % (fn.__qualname__, e)) from None
        # Dedented source of the function, decorators included (the frontend skips them).
        self.src = textwrap.dedent("".join(lines))
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.do_not_specialize = tuple(do_not_specialize)
        self.debug = debug
        self.noinline = noinline
        self.diff_mode = diff_mode
        self.diff_select = diff_select
        self.log_dir = log_dir

    @property
    def constexpr_names(self):
        """Parameters annotated ``tl.constexpr`` (or ``txl.constexpr``): compile-time values."""
        names = []
        for name, p in self.signature.parameters.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty:
                continue
            text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
            if text == "constexpr" or text.endswith(".constexpr"):
                names.append(name)
        return names

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s is a @txl.jit function: call it from another @txl.jit function, launch it with "
                           "%s[grid](*args), or compile it with txl.compile(%s, signature=...)"
                           % (self.__name__, self.__name__, self.__name__))

    def __repr__(self):
        return "JITFunction(%s:%s)" % (self.__module__, self.__qualname__)


def jit(fn=None, **options):
    """Decorator: ``@txl.jit`` or ``@txl.jit(debug=True, ...)``."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)
