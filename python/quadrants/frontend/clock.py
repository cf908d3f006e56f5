# python/quadrants/frontend/clock.py: qd.clock_counter() (the hardware cycle counter, read inside kernels) and
# qd.clock_freq_hz() (the GPU's nominal clock).
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.ir_builder import Expr
from quadrants.runtime import init as _runtime


def clock_freq_hz():
    """The nominal clock of the current CUDA device in Hz (not its current boosted speed), the rate at which
    qd.clock_counter() counts there; NotImplementedError on the CPU, as upstream (a CPU's timestamp counter
    has no fixed relation to a device clock)."""
    config = _runtime.config()
    if not config.is_cuda:
        raise NotImplementedError(f"clock_freq_hz not implemented for arch {config.arch.name}: it reports a CUDA "
                                  "device's clock; on the CPU use time.perf_counter() to measure time.")
    return float(config.cuda_properties["clock_rate_khz"] * 1000)


def _clock_counter(ops, *args):
    if args:
        raise ops.tr.fail(f"qd.clock_counter() takes no arguments, but got {len(args)}", kind="type")
    # side_effect: every evaluation reads the counter anew, so the frontend never duplicates or drops one.
    return Expr("(clock_counter)", side_effect=True)


clock_counter = Builtin("clock_counter", kernel_only("clock_counter"), "composite", impl=_clock_counter)
clock_counter.__doc__ = (
    "clock_counter()\n\nThe hardware cycle counter as an i64, inside kernels: raw ticks, not nanoseconds. CUDA: "
    "the streaming multiprocessor's clock64() (qd.clock_freq_hz() gives its nominal rate); the CPU: the "
    "processor's timestamp counter (rdtsc on x86-64, cntvct_el0 on arm64). Compare readings only within one "
    "run on one device.")

__all__ = ["clock_counter", "clock_freq_hz"]
