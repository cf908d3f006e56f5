# python/quadrants/runtime/streams.py: qd.Stream, qd.Event, qd.create_stream(), qd.create_event() (upstream's
# quadrants.lang.stream).
#
# On CUDA a Stream is a CUDA stream and an Event a CUDA event of the current device (src/runtime/cuda/stream.cpp):
# `kernel(..., qd_stream=s)` enqueues the kernel on s, `e.record(s)` captures what s has enqueued so far,
# `e.wait(qd_stream=t)` makes t's later work wait for it, synchronize() waits on the host. On the CPU, where every
# launch has finished when it returns, there is nothing to order: handles are 0 and every operation returns at once,
# which keeps the program's order (upstream's CPU streams are no-ops too). A handle belongs to the qd.init() that
# made it; after qd.reset() or another qd.init(), using it raises, and destroying it still frees it.
from quadrants.runtime import _core, init as _runtime


class _Handle:
    """What a Stream and an Event share: the handle, whether we made it (else destroy leaves it alone), and the
    configuration it was made under."""

    _what = "handle"

    def __init__(self, handle, _owned=False):
        if not isinstance(handle, int) or isinstance(handle, bool) or handle < 0:
            raise TypeError(f"qd.{type(self).__name__}(handle) expects a non-negative int (a CUDA "
                            f"{self._what} handle, as torch's cuda_stream gives one), but got {handle!r}.")
        self._handle = handle
        self._owned = _owned
        self._generation = _runtime.generation()
        config = _runtime.config()
        self._device_id = config.device_id if config.is_cuda else None

    @property
    def handle(self):
        """The CUDA handle as an integer; 0 on the CPU and once destroyed."""
        return self._handle

    def _live_device(self):
        """The CUDA device to act on, or None on the CPU; raises when qd.reset()/qd.init() came since."""
        if self._generation != _runtime.generation():
            raise RuntimeError(f"This qd.{type(self).__name__}'s owning runtime has been destroyed (by qd.reset() "
                               f"or qd.init() since it was created); create a new one.")
        return self._device_id if self._handle else None

    def destroy(self):
        """Frees the handle (after the work enqueued on it finishes). Safe to call twice; a handle made elsewhere
        (qd.Stream(ptr)) is left to its owner."""
        if self._handle and self._owned and self._device_id is not None:
            self._free(self._handle, self._device_id)
        self._handle = 0

    def __del__(self):
        try:
            self.destroy()
        except Exception:  # noqa: BLE001  interpreter shutdown or a lost context: nothing left to free
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.destroy()

    def __repr__(self):
        return f"<qd.{type(self).__name__} handle={self._handle:#x}>"


class Stream(_Handle):
    """A stream kernels are launched on with `kernel(..., qd_stream=stream)`; kernels on different streams may run
    concurrently on CUDA. On the CPU it orders nothing (launches are synchronous)."""

    _what = "stream"

    @staticmethod
    def _free(handle, device_id):
        _core.cuda_stream_destroy(handle, device_id)

    def synchronize(self):
        """Waits on the host until the work enqueued on this stream is done."""
        device_id = self._live_device()
        if device_id is not None:
            _core.cuda_synchronize(self._handle, device_id)


class Event(_Handle):
    """A point in a stream's work: record() captures it, wait() makes another stream wait for it."""

    _what = "event"

    @staticmethod
    def _free(handle, device_id):
        _core.cuda_event_destroy(handle, device_id)

    def record(self, qd_stream=None):
        """Captures the work enqueued so far on qd_stream (None: the default stream)."""
        stream = _stream_handle(qd_stream, "record")
        device_id = self._live_device()
        if device_id is not None:
            _core.cuda_event_record(self._handle, stream, device_id)

    def wait(self, qd_stream=None):
        """Makes later work on qd_stream (None: the default stream) wait until the last record() is reached,
        without blocking the host."""
        stream = _stream_handle(qd_stream, "wait")
        device_id = self._live_device()
        if device_id is not None:
            _core.cuda_stream_wait_event(stream, self._handle, device_id)

    def synchronize(self):
        """Waits on the host until the last record() is reached."""
        device_id = self._live_device()
        if device_id is not None:
            _core.cuda_event_synchronize(self._handle, device_id)


def _stream_handle(stream, method):
    if stream is None:
        return 0
    if not isinstance(stream, Stream):
        raise TypeError(f"qd.Event.{method}(qd_stream=...) expects a qd.Stream or None, but got {stream!r}.")
    stream._live_device()
    return stream.handle


def create_stream():
    """A new stream of the current device (a CUDA stream on CUDA; handle 0, ordering nothing, on the CPU)."""
    config = _runtime.config()
    handle = _core.cuda_stream_create(config.device_id) if config.is_cuda else 0
    return Stream(handle, _owned=True)


def create_event():
    """A new event of the current device (a CUDA event on CUDA; handle 0, ordering nothing, on the CPU)."""
    config = _runtime.config()
    handle = _core.cuda_event_create(config.device_id) if config.is_cuda else 0
    return Event(handle, _owned=True)


__all__ = ["Event", "Stream", "create_event", "create_stream"]
