# python/quadrants/frontend/loop_space.py: what a loop iterates, as loops.py lowers it and sparse_access.py narrows
# it to the active cells of sparse SNodes.


class LoopSpace:
    """What a loop iterates: per dimension a (begin, end) pair, the loop variable running over [begin, end);
    `grouped` binds one index vector."""

    def __init__(self, bounds, grouped=False, axes=None):
        # A 0-d space (a shape () field or ndarray) has one point: one iteration of a hidden index,
        # and a grouped loop variable that is the empty index vector.
        self.zero_dim = not bounds
        self.bounds = bounds or [(0, 1)]
        self.grouped = grouped
        self.axes = axes  # ndrange(axes=): the order in which the dimensions nest, outermost first; None: natural
        self.guard = None  # struct-fors over sparse cells: guard(tr, index_names, kind) skips inactive ones
        self.blocked = None  # or blocked(tr, node, targets): the parallel loop over sparse blocks, if it takes it
