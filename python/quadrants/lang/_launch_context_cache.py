# python/quadrants/lang/_launch_context_cache.py: upstream's kernel.launch_context_buffer_cache, its per-call memo of
# packed launch contexts, as a view of our dispatch entries (a compatibility view; it caches nothing itself).
#
# Upstream packs a launch's arguments once per set of argument identities and replays the packed context when the
# same objects come again. Ours prepares a launch once per dispatch entry: the entry's generated function knows which
# leaves to read and its launcher converts them in C++ (kernels/dispatch.py), so the entries are our launch-context
# cache, keyed as our dispatch keys them (kernels/dispatch_records.py). Both upstream names read them:
#   _launch_ctx_cache          dispatch key -> the entry's launcher
#   _launch_ctx_cache_tracker  dispatch key -> [None, the finalizers that drop the entry when an object it names dies]
import weakref

from quadrants.base import registry
from quadrants.kernels.dispatch_records import dispatch_records


class LaunchContextBufferCache:
    """The launchers of a kernel's live dispatch entries, under upstream's names."""

    def __init__(self, kernel):
        self._kernel = weakref.ref(kernel)

    def _records(self):
        kernel = self._kernel()
        return dispatch_records(kernel) if kernel is not None else {}

    @property
    def _launch_ctx_cache(self):
        return {key: record.launcher for key, record in self._records().items()}

    @property
    def _launch_ctx_cache_tracker(self):
        return {key: record.trackers() for key, record in self._records().items()}


def launch_context_cache_of(kernel):
    """kernel.launch_context_buffer_cache: made on first use, kept on the kernel object."""
    cache = getattr(kernel, "_qd_launch_context_cache", None)
    if cache is None:
        cache = kernel._qd_launch_context_cache = LaunchContextBufferCache(kernel)
    return cache


registry.provide("launch_context_cache_of", launch_context_cache_of)

__all__ = ["LaunchContextBufferCache"]
