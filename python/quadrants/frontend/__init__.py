# python/quadrants/frontend/__init__.py: the frontend floor: kernel and func source translated to IR (docs/IR.md).
"""Floor 5 of the package: the kernel language. The translator (`translator.py` over mixins for expressions,
calls, statements, loops, returns, ...) turns the source of a kernel or `@qd.func` into kernel IR text
(docs/IR.md) for the C++ core; `funcs.py` holds the `@qd.func` and `@qd.real_func` objects and
`builtins.py` the kernel built-ins (`qd.sqrt`, `qd.atomic_add`, `qd.static`, `qd.ndrange`, ...). Its
public names are re-exported by `quadrants`."""
