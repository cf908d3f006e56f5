# python/quadrants/lang/stream.py: upstream's module path for streams and events (runtime/streams.py) and
# `with qd.stream_parallel():` (frontend/stream_parallel.py).
from quadrants.frontend.stream_parallel import stream_parallel  # noqa: F401
from quadrants.runtime.streams import Event, Stream, create_event, create_stream  # noqa: F401

__all__ = ["Event", "Stream", "create_event", "create_stream", "stream_parallel"]
