# python/quadrants/lang/checkpoint.py: qd.checkpoint, upstream's yield/resume stage marker for graph kernels.
#
# Outside kernels it is a context manager that does nothing, as upstream's (helpers shared by Python code and
# kernels run in both). Inside kernels quadrants does not implement checkpoint/resume yet (GraphStatus, implicit
# checkpoints around top-level loops, kernel.resume(from_checkpoint=...)): graph_sections.py refuses the construct
# and @qd.kernel(checkpoints=True) kernels with a QuadrantsSyntaxError rather than run them without it.
from contextlib import contextmanager


@contextmanager
def checkpoint(cp_id=None, yield_on=None):
    """`with qd.checkpoint(cp_id, yield_on=flag):` in a @qd.kernel(graph=True, checkpoints=True) (not supported by
    quadrants yet); called from Python it does nothing."""
    del cp_id, yield_on
    yield


NOT_IMPLEMENTED = ("checkpoint/resume (@qd.kernel(graph=True, checkpoints=True), qd.checkpoint, kernel.resume) is not "
                   "implemented in quadrants yet")
NOT_IMPLEMENTED_HINT = ("drop checkpoints=True and the qd.checkpoint blocks (the kernel then runs every stage), or "
                        "split the stages into separate kernels and decide on the host which to launch.")
