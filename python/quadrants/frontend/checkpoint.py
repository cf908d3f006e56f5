# python/quadrants/frontend/checkpoint.py: qd.checkpoint and qd.GraphStatus, upstream's yield/resume surface.
#
# Inside a @qd.kernel(graph=True, checkpoints=True) the `with qd.checkpoint(cp_id, yield_on=flag):` statement is
# translated (checkpoint_scan.py finds the checkpoints, checkpoint_translate.py guards them and checkpoint_kernel.py
# runs the host side); called from Python it is a context manager that does nothing, as upstream's (helpers shared
# by Python code and kernels run in both).
from contextlib import contextmanager


@contextmanager
def checkpoint(cp_id=None, yield_on=None):
    """`with qd.checkpoint(cp_id, yield_on=flag):` in a @qd.kernel(graph=True, checkpoints=True): when the block
    leaves flag (a 0-d qd.i32 ndarray) nonzero, the launch stops after it and returns
    GraphStatus(yielded=True, checkpoint=cp_id); kernel.resume(..., from_checkpoint=cp_id) then skips what comes
    before the block. Called from Python it does nothing."""
    del cp_id, yield_on
    yield


class GraphStatus:
    """What a launch of a checkpoints kernel with a yield_on checkpoint returns: yielded, and the label of the
    checkpoint that yielded (an int or the IntEnum member written, None when the launch ran to its end)."""

    __slots__ = ("yielded", "checkpoint")

    def __init__(self, yielded, checkpoint):
        self.yielded = yielded
        self.checkpoint = checkpoint

    def __repr__(self):
        if self.yielded:
            return f"GraphStatus(yielded=True, checkpoint={self.checkpoint!r})"
        return "GraphStatus(yielded=False)"
