# python/quadrants/lang/graph.py: the qd.graph namespace: parallel_context() and parallel() sections.
#
# Inside a @qd.kernel(graph=True) these are never called: the translator recognizes the `with` statements
# (graph_sections.py) and translates each section's body in place. Called from Python they are context
# managers that do nothing, so a helper shared by Python code and kernels runs in both.
from contextlib import contextmanager


@contextmanager
def parallel_context():
    """`with qd.graph.parallel_context():` in a graph kernel: a region of independent `qd.graph.parallel()`
    sections, all finished before the statement after the region starts. Quadrants runs the sections one after
    another, in source order, on every backend; the program must not depend on that order (no section may read
    what another writes), since upstream Quadrants overlaps them on CUDA."""
    yield


@contextmanager
def parallel():
    """`with qd.graph.parallel():` directly inside a `qd.graph.parallel_context()` region: one section, whose
    statements keep their order. See parallel_context()."""
    yield


__all__ = ["parallel", "parallel_context"]
