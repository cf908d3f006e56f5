# python/quadrants/frontend/clock.py: qd.clock_freq_hz() (the GPU's nominal clock) and qd.clock_counter() (a cycle
# counter read inside kernels, which quadrants does not have yet).
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.runtime import init as _runtime


def clock_freq_hz():
    """The nominal clock of the current CUDA device in Hz (not its current boosted speed); NotImplementedError on
    the CPU, as upstream (a CPU's timestamp counter has no fixed relation to a device clock)."""
    config = _runtime.config()
    if not config.is_cuda:
        raise NotImplementedError(f"clock_freq_hz not implemented for arch {config.arch.name}: it reports a CUDA "
                                  "device's clock; on the CPU use time.perf_counter() to measure time.")
    return float(config.cuda_properties["clock_rate_khz"] * 1000)


def _clock_counter(ops, *args):
    raise ops.tr.fail("qd.clock_counter() is not supported in quadrants yet: its kernel IR has no operation that "
                      "reads the cycle counter (rdtsc on the CPU, clock64() on CUDA)", kind="syntax",
                      hint="time whole kernels from Python (qd.sync(), then time.perf_counter()), or use the "
                      "kernel profiler (qd.init(kernel_profiler=True)).")


clock_counter = Builtin("clock_counter", kernel_only("clock_counter"), "composite", impl=_clock_counter)
clock_counter.__doc__ = ("clock_counter()\n\nUpstream's cycle counter read in kernels: not supported in quadrants "
                         "yet (a compile error naming why).")

__all__ = ["clock_counter", "clock_freq_hz"]
