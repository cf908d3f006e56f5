# python/quadrants/kernels/perf_dispatch.py: @qd.perf_dispatch, upstream's run-time choice among implementations of
# one function by measured time, per "geometry" of the arguments.
#
# A dispatcher is declared by decorating a prototype (its body never runs); implementations join it with
# @dispatcher.register(is_compatible=...). A call runs one compatible implementation: while a geometry is being
# measured, the one tried fewest times (warmup runs untimed, then `active` timed runs each); then the fastest by mean
# time, until repeat_after_count calls or repeat_after_seconds pass and the measurement starts over. Every
# implementation must have the same effects, so which one runs changes only speed. QD_PERFDISPATCH_FORCE
# ('dispatcher:impl,...') pins implementations by name, as upstream; it is read once, at import, into _FORCE_MAP.
# Upstream's path quadrants.lang._perf_dispatch is this module itself (its tests patch _FORCE_MAP there and read the
# dispatcher's per-geometry tables by upstream's attribute names, which the properties below give).
import inspect
import os
import time
from collections import defaultdict

from quadrants.base.errors import QuadrantsRuntimeError, QuadrantsSyntaxError
from quadrants.runtime import init as _runtime

NUM_FIRST_WARMUP = 1  # untimed runs of each implementation before the first measurement of a geometry
NUM_WARMUP = 0  # untimed runs before each later re-measurement (kernels are compiled by then)
NUM_ACTIVE = 1  # timed runs of each implementation per measurement
DEFAULT_REPEAT_AFTER_COUNT = 300  # re-measure after this many calls when neither trigger is given
_MISMATCH = "(error code: PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH)."  # upstream's code, which its tests match


def _parse_force_map(raw):
    """QD_PERFDISPATCH_FORCE's text 'dispatcher1:impl1,dispatcher2:impl2' as {dispatcher: impl}."""
    forced = {}
    for pair in filter(None, (p.strip() for p in (raw or "").split(","))):
        if ":" not in pair:
            raise ValueError(f"Malformed QD_PERFDISPATCH_FORCE entry '{pair}'. Expected format: 'dispatcher:impl'.")
        dispatcher, implementation = (s.strip() for s in pair.split(":"))
        forced[dispatcher] = implementation
    return forced


_FORCE_MAP = _parse_force_map(os.environ.get("QD_PERFDISPATCH_FORCE"))
_ANY_FORCE_ACTIVE = bool(_FORCE_MAP)


def _python_function(fn):
    """The Python function under a @qd.kernel/@qd.func wrapper, for its signature and name."""
    return getattr(fn, "fn", None) or getattr(fn, "__wrapped__", None) or fn


class DispatchImpl:
    """One registered implementation; calling it calls the implementation directly."""

    def __init__(self, implementation, is_compatible):
        self.__wrapped__ = implementation
        self.is_compatible = is_compatible
        self.__name__ = _python_function(implementation).__name__

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)


class _Geometry:
    """What is known of one geometry: trials and times per implementation, and the fastest once measured."""

    def __init__(self):
        self.trials = defaultdict(int)
        self.times = defaultdict(list)
        self.fastest = None
        self.calls_since_choice = 0
        self.chosen_at = 0.0
        self.measured_once = False


class PerformanceDispatcher:
    """What @qd.perf_dispatch makes of a prototype: call it like the prototype."""

    def __init__(self, fn, get_geometry_hash, first_warmup, warmup, active, repeat_after_count,
                 repeat_after_seconds):
        self._name = _python_function(fn).__name__
        self._params = list(inspect.signature(_python_function(fn)).parameters)
        self._get_geometry_hash = get_geometry_hash
        self.num_first_warmup, self.num_warmup, self.num_active = first_warmup, warmup, active
        if repeat_after_count is None and repeat_after_seconds is None:
            repeat_after_count = DEFAULT_REPEAT_AFTER_COUNT
        self.repeat_after_count, self.repeat_after_seconds = repeat_after_count, repeat_after_seconds
        self._dispatch_impls = []
        self._geometries = defaultdict(_Geometry)
        self._forced = None

    def register(self, implementation=None, *, is_compatible=None):
        """@dispatcher.register or @dispatcher.register(is_compatible=fn): adds an implementation, whose
        parameters must be the prototype's; is_compatible(*args, **kwargs) says whether it can run a call."""

        def decorator(fn):
            params = list(inspect.signature(_python_function(fn)).parameters)
            unknown = [p for p in params if p not in self._params]
            if unknown:
                raise QuadrantsSyntaxError(f"Signature parameter {unknown[0]} of function not in perf_dispatch "
                                           f"function prototype {_MISMATCH}")
            if len(params) != len(self._params):
                raise QuadrantsSyntaxError(f"Number of function parameters {len(params)} doesn't match number of "
                                           f"parameters in perf_dispatch function prototype {len(self._params)} "
                                           f"{_MISMATCH}")
            dispatch_impl = DispatchImpl(fn, is_compatible)
            self._dispatch_impls.append(dispatch_impl)
            return dispatch_impl

        return decorator(implementation) if implementation is not None else decorator

    # Upstream's names for the per-geometry tables, which its tests read.
    @property
    def _trial_count_by_dispatch_impl_by_geometry_hash(self):
        return {geometry_hash: g.trials for geometry_hash, g in self._geometries.items()}

    @property
    def _fastest_dispatch_impl_by_geometry_hash(self):
        return {geometry_hash: g.fastest for geometry_hash, g in self._geometries.items() if g.fastest is not None}

    @property
    def _first_eval_completed(self):
        return {geometry_hash for geometry_hash, g in self._geometries.items() if g.measured_once}

    def _resolve_force(self):
        """On the first call (every implementation registered by then): the one QD_PERFDISPATCH_FORCE names, or
        False; an unknown name says so and falls back to measuring."""
        self._forced = False
        # The map read at import (which code may patch, as upstream's tests do), else the environment now.
        force_map = _FORCE_MAP if _ANY_FORCE_ACTIVE else _parse_force_map(os.environ.get("QD_PERFDISPATCH_FORCE"))
        if not force_map:
            return
        available = ", ".join(f"'{d.__name__}'" for d in self._dispatch_impls)
        print(f"perf_dispatch '{self._name}': available implementations: [{available}]")
        wanted = force_map.get(self._name)
        if wanted is None:
            return
        self._forced = next((d for d in self._dispatch_impls if d.__name__ == wanted), False)
        if self._forced:
            print(f"perf_dispatch '{self._name}': forced to '{wanted}' via QD_PERFDISPATCH_FORCE")
        else:
            print(f"[perf_dispatch] WARNING: QD_PERFDISPATCH_FORCE requested '{wanted}' for '{self._name}', but no "
                  f"such implementation found. Available: [{available}]. Falling back to normal benchmarking.")

    def __call__(self, *args, **kwargs):
        if self._forced is None:
            self._resolve_force()
        if self._forced:
            return self._forced(*args, **kwargs)
        geometry = self._geometries[self._get_geometry_hash(*args, **kwargs)]
        if geometry.fastest is not None and not self._measurement_expired(geometry):
            return geometry.fastest(*args, **kwargs)
        compatible = [d for d in self._dispatch_impls if d.is_compatible is None or d.is_compatible(*args, **kwargs)]
        if not compatible:
            raise QuadrantsRuntimeError("No suitable functions were found.")
        if len(compatible) == 1:
            self._choose(geometry, compatible[0])
            return compatible[0](*args, **kwargs)
        return self._measure(geometry, compatible, args, kwargs)

    def _measurement_expired(self, geometry):
        geometry.calls_since_choice += 1
        count, seconds = self.repeat_after_count, self.repeat_after_seconds
        expired = (count is not None and count > 0 and geometry.calls_since_choice >= count) or \
                  (seconds is not None and seconds > 0 and time.time() - geometry.chosen_at >= seconds)
        if expired:
            geometry.trials.clear()
            geometry.times.clear()
            geometry.fastest = None
        return expired

    def _choose(self, geometry, dispatch_impl):
        geometry.fastest = dispatch_impl
        geometry.calls_since_choice = 0
        geometry.chosen_at = time.time()

    def _measure(self, geometry, compatible, args, kwargs):
        """Runs the compatible implementation tried fewest times; times it once past the warmup runs."""
        dispatch_impl = min(compatible, key=lambda d: geometry.trials[d])
        warmup = self.num_warmup if geometry.measured_once else self.num_first_warmup
        timed = geometry.trials[dispatch_impl] >= warmup
        geometry.trials[dispatch_impl] += 1
        if not timed:
            return dispatch_impl(*args, **kwargs)
        _runtime.sync()
        start = time.perf_counter()
        result = dispatch_impl(*args, **kwargs)
        _runtime.sync()
        geometry.times[dispatch_impl].append(time.perf_counter() - start)
        if all(geometry.trials[d] >= warmup + self.num_active for d in compatible):
            self._choose(geometry, min(compatible, key=lambda d: sum(geometry.times[d]) / len(geometry.times[d])))
            geometry.measured_once = True
        return result


def perf_dispatch(*, get_geometry_hash, first_warmup=NUM_FIRST_WARMUP, warmup=NUM_WARMUP, active=NUM_ACTIVE,
                  repeat_after_count=None, repeat_after_seconds=None):
    """@qd.perf_dispatch(get_geometry_hash=fn, ...): declares a function whose registered implementations are
    chosen by measured time, per geometry hash of the arguments (see the module's head)."""

    def decorator(fn):
        return PerformanceDispatcher(fn, get_geometry_hash, first_warmup, warmup, active, repeat_after_count,
                                     repeat_after_seconds)

    return decorator
