# python/quadrants/frontend/graph.py: the qd.graph namespace: do_while() loops, parallel_context() and parallel() sections.
#
# Inside a @qd.kernel(graph=True) these are never called: the translator recognizes the `with` statements
# (graph_sections.py) and translates each section's body in place. Called from Python they are context
# managers that do nothing, so a helper shared by Python code and kernels runs in both.
from contextlib import contextmanager as _contextmanager


def do_while(flag):
    """`while qd.graph.do_while(flag):` in a @qd.kernel(graph=True): runs the body, then again while the 0-d qd.i32
    ndarray `flag` is nonzero (at least once: a do-while). The body's top-level for loops stay parallel; the host
    side reads `flag` after each iteration (graph_do_while.py). Only meaningful inside kernels."""
    raise RuntimeError("qd.graph.do_while() can only be used as `while qd.graph.do_while(flag):` inside a "
                       "@qd.kernel(graph=True); outside kernels, write an ordinary Python loop.")


@_contextmanager
def parallel_context():
    """`with qd.graph.parallel_context():` in a graph kernel: a region of independent `qd.graph.parallel()`
    sections, all finished before the statement after the region starts. Quadrants runs the sections one after
    another, in source order, on every backend; the program must not depend on that order (no section may read
    what another writes), since upstream Quadrants overlaps them on CUDA."""
    yield


@_contextmanager
def parallel():
    """`with qd.graph.parallel():` directly inside a `qd.graph.parallel_context()` region: one section, whose
    statements keep their order. See parallel_context()."""
    yield


__all__ = ["do_while", "parallel", "parallel_context"]
