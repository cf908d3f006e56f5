# python/quadrants/base/gc_pause.py: Python's cyclic garbage collector held off while a kernel is translated.
#
# Translating a kernel allocates hundreds of thousands of short-lived objects (AST visits, IR texts, values), which
# trigger collections; with torch and Genesis loaded, a full (generation 2) collection walks millions of objects:
# 0.2-0.35 s each, 1.05 s of CPU in the 24 translations of Genesis' rigid scene's cold build. Little of what a
# translation allocates is cyclic garbage, and what is gets collected by the first collection after it.
import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """Disables automatic collection for the block, unless the program had already disabled it (then nothing
    changes: a nested pause or the program's own choice is left as it was)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
