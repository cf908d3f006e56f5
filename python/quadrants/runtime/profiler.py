# python/quadrants/runtime/profiler.py: qd.profiler, the kernel profiler of upstream's API.
#
# qd.init(kernel_profiler=True) turns it on; every launch is then timed from start to completion
# (CPU launches are synchronous; on CUDA the profiler waits for each kernel, as upstream's does).
from quadrants.runtime import _core


class KernelProfilerQueryResult:
    """Statistics of one kernel: counter (launches), min, max and avg, in milliseconds."""

    def __init__(self, counter, min_ms, max_ms, avg_ms):
        self.counter, self.min, self.max, self.avg = counter, min_ms, max_ms, avg_ms

    def __repr__(self):
        return f"KernelProfilerQueryResult(counter={self.counter}, min={self.min}, max={self.max}, avg={self.avg})"


def _warn_if_off():
    if _core.kernel_profiling():
        return False
    import warnings

    warnings.warn("The kernel profiler is off; turn it on with qd.init(kernel_profiler=True).", RuntimeWarning,
                  stacklevel=3)
    return True


def get_kernel_profiler_total_time():
    """Total time of every kernel launched since the last clear, in seconds."""
    if _warn_if_off():
        return 0.0
    return sum(row[2] for row in _core.kernel_times()) / 1000.0


def query_kernel_profiler_info(name):
    """The launches of the kernel called `name` (counter 0 when it never ran)."""
    if _warn_if_off():
        return None
    for kernel, count, total, low, high in _core.kernel_times():
        if kernel == name:
            return KernelProfilerQueryResult(count, low, high, total / count)
    return KernelProfilerQueryResult(0, 0.0, 0.0, 0.0)


def clear_kernel_profiler_info():
    """Forgets every recorded launch."""
    if not _warn_if_off():
        _core.clear_kernel_times()


def print_kernel_profiler_info(mode="count"):
    """Prints one line per kernel: share of the total, total, launches, min/avg/max (upstream's table)."""
    if mode not in ("count", "trace"):
        raise ValueError(f"print_kernel_profiler_info(mode=...) expects 'count' or 'trace', but got {mode!r}.")
    if _warn_if_off():
        return
    rows = sorted(_core.kernel_times(), key=lambda row: -row[2])
    total_ms = sum(row[2] for row in rows)
    header = "[      %     total   count |      min       avg       max   ] Kernel name"
    line = "=" * max(len(header), 60)
    print(line)
    print("Kernel Profiler(count) @ quadrants")
    print(line)
    print(header)
    print("-" * len(line))
    for name, count, total, low, high in rows:
        share = 100.0 * total / total_ms if total_ms else 0.0
        print(f"[{share:6.2f}% {total / 1000:7.3f} s {count:6d}x |{low:9.3f} {total / count:9.3f} {high:9.3f} ms] {name}")
    print("-" * len(line))
    print(f"[100.00%] Total execution time: {total_ms / 1000:7.3f} s   number of results: {len(rows)}")
    print(line)


def set_kernel_profiler_toolkit(toolkit_name="default"):
    """Only the default toolkit exists here (upstream's 'cupti' needs CUPTI); returns whether it was set."""
    if toolkit_name != "default":
        import warnings

        warnings.warn(f"Kernel profiler toolkit {toolkit_name!r} is not available; using 'default'.", RuntimeWarning,
                      stacklevel=2)
        return False
    return True


__all__ = ["KernelProfilerQueryResult", "clear_kernel_profiler_info", "get_kernel_profiler_total_time",
           "print_kernel_profiler_info", "query_kernel_profiler_info", "set_kernel_profiler_toolkit"]
