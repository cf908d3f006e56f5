# python/quadrants/kernels/checkpoint_kernel.py: the host side of @qd.kernel(graph=True, checkpoints=True) kernels.
#
# Such a kernel's definition gets a hidden last i32 parameter, the checkpoint index a launch starts from, and a
# hidden i32 return, the index of the checkpoint that yielded or -1 (checkpoint_translate.py). CheckpointKernel
# wraps the compiled kernel: a call passes 0 and kernel.resume(..., from_checkpoint=LABEL) the label's index, and
# both turn the returned index into a GraphStatus (None for kernels without a yield_on checkpoint, as upstream).
# Upstream's introspection (kernel._primal.checkpoint_user_labels_by_cp_id, ...) reads the CheckpointTable.
import functools
import inspect

from quadrants.base.dtypes import i32
from quadrants.base.errors import QuadrantsSyntaxError
from quadrants.frontend.checkpoint import GraphStatus
from quadrants.frontend.checkpoint_scan import checkpoint_table
from quadrants.frontend.checkpoint_translate import NOT_DONE, RESUME_PARAM, flag_arg_ids
from quadrants.frontend.return_values import return_spec
from quadrants.frontend.source import function_source


def resume_param(param_class):
    """The hidden parameter a checkpoints kernel takes last (KernelParam is passed in: kernels.py imports us)."""
    return param_class(RESUME_PARAM, "scalar", i32)


def checkpoint_return_spec(fn, annotation):
    """The hidden i32 return; a kernel of its own return type cannot also report its checkpoint."""
    if annotation is not None:
        code = fn.__code__
        raise QuadrantsSyntaxError(f"Kernel '{fn.__name__}' has a return type, which @qd.kernel(graph=True, "
                                   "checkpoints=True) kernels cannot have: their launches return a qd.GraphStatus",
                                   code.co_filename, code.co_firstlineno,
                                   hint="write the results into an ndarray argument instead.")
    return return_spec(i32)


_DELEGATED = frozenset({"ir", "export_ir", "grad", "params", "runtime_positions", "autodiff_mode",
                        "graph_do_while_levels", "graph_do_while_arg"})


class CheckpointKernel:
    """A checkpoints kernel as users call it: kernel(...), kernel.resume(..., from_checkpoint=...)."""

    def __init__(self, inner, definition):
        self._inner = inner
        self.definition = definition
        self.fn = definition.fn
        self._signature = inspect.signature(definition.fn)
        functools.update_wrapper(self, definition.fn)

    def __getattr__(self, name):
        # Only the kernel API, not `_qd_kernel`: @qd.data_oriented would wrap a "kernel" method in a KernelMethod,
        # which has no resume(); binding stays ours (__get__).
        if name not in _DELEGATED:
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __get__(self, instance, owner=None):
        return self if instance is None else _BoundCheckpointKernel(self, instance)

    def __call__(self, *args, **kwargs):
        return self._launch(args, kwargs, 0)

    def resume(self, *args, from_checkpoint, **kwargs):
        """Launches again, skipping every checkpoint before the one labelled `from_checkpoint` (in source order),
        typically status.checkpoint of the launch that yielded."""
        if not isinstance(from_checkpoint, int) or isinstance(from_checkpoint, bool):
            raise RuntimeError("from_checkpoint= must be an int or IntEnum value matching a `qd.checkpoint(cp_id="
                               "...)` label in the kernel (typically `status.checkpoint` from the previous launch's "
                               f"GraphStatus); got {from_checkpoint!r}.")
        return self._launch(args, kwargs, self._index_of(from_checkpoint))

    def _table(self):
        return checkpoint_table(function_source(self.fn))

    def _index_of(self, label):
        table = self._table()
        if not table.yields:
            raise RuntimeError("`from_checkpoint=` is only valid for kernels that contain at least one "
                               "qd.checkpoint(yield_on=...) block; this kernel has none.")
        for index, known in enumerate(table.labels):
            if known is not None and known == label:
                return index
        available = [known for known in table.labels if known is not None]
        raise RuntimeError(f"from_checkpoint={label!r} does not match any qd.checkpoint(cp_id=...) in kernel "
                           f"{self.fn.__name__!r}. Available cp_id labels (source-declaration order): {available}.")

    def _launch(self, args, kwargs, start):
        table = self._table()  # first, so that a malformed checkpoint is reported before anything runs
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        result = self._inner(*bound.args, start)
        if not table.yields:
            return None
        if result == NOT_DONE:
            return GraphStatus(False, None)
        return GraphStatus(True, table.labels[result])

    # upstream's introspection: kernel._primal.<table>
    @property
    def _primal(self):
        return self

    @property
    def src_ll_cache_observations(self):
        """What the translation cache did for the last call, as upstream's fast cache reports it (fastcache_key.py)."""
        return self.definition.cache_observations

    @src_ll_cache_observations.setter
    def src_ll_cache_observations(self, observations):
        self.definition.cache_observations = observations

    @property
    def checkpoint_user_labels_by_cp_id(self):
        return self._table().labels

    @property
    def checkpoint_yield_on_args(self):
        return self._table().yield_on_labels

    @property
    def checkpoint_yield_on_cpp_arg_ids(self):
        return flag_arg_ids(self.definition.last_graph_ir, len(self._table().sites))


class _BoundCheckpointKernel:
    """A checkpoints kernel method bound to its @qd.data_oriented instance."""

    def __init__(self, kernel, instance):
        self._kernel = kernel
        self._instance = instance

    def __call__(self, *args, **kwargs):
        return self._kernel(self._instance, *args, **kwargs)

    def resume(self, *args, from_checkpoint, **kwargs):
        return self._kernel.resume(self._instance, *args, from_checkpoint=from_checkpoint, **kwargs)

    def __getattr__(self, name):
        return getattr(self._kernel, name)
