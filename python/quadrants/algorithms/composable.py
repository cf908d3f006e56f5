# python/quadrants/algorithms/composable.py: upstream's composable device-wide operations, reduce_{add,min,max},
# exclusive_scan_{add,min,max}, select and reduce_by_key_add: @qd.func's called at the top level of the caller's
# kernel, with the live count `n` read on the device.
#
# Upstream builds each as a staircase of block-parallel phases that stage partials in the caller's `scratch`. Here
# each is one serial pass (a top-level loop of one iteration holding the walk over n), plus a parallel zeroing where
# upstream's result has one: the results are upstream's (reductions of floats summed in index order), the speed is
# not, and `scratch` is accepted, sized by the *_scratch_slots functions (device_wide.py) as upstream's, and left
# untouched. The dtype and depth checks are upstream's, made while the caller compiles.
import math

import numpy as np

from quadrants.algorithms.device_wide import _validate_log256_max_n
from quadrants.base import dtypes as qdt
from quadrants.frontend import builtins as ops
from quadrants.frontend.funcs import func
from quadrants.types.annotations import template

_SUPPORTED = (qdt.i32, qdt.u32, qdt.f32, qdt.i64, qdt.u64, qdt.f64)


def _checked(dtype, log256_max_n, what):
    """Upstream's compile-time checks: the element dtype is one of the six it supports, the depth at most 4."""
    if dtype not in _SUPPORTED:
        raise NotImplementedError(f"qd.algorithms.{what}: dtype {dtype!r} is not supported; the device-wide operations "
                                  f"take {', '.join(d.name for d in _SUPPORTED)}.")
    _validate_log256_max_n(log256_max_n)


def _identity(dtype, op):
    """The identity of op ('add', 'min', 'max') over dtype: 0, the largest value, the smallest (floats: +-inf)."""
    if op == "add":
        return 0
    if dtype.numpy.kind == "f":
        return math.inf if op == "min" else -math.inf
    info = np.iinfo(dtype.numpy)
    return int(info.max) if op == "min" else int(info.min)


@func
def _combine(a, b, op: template()):
    result = a + b
    if ops.static(op == "min"):
        result = ops.min(a, b)
    elif ops.static(op == "max"):
        result = ops.max(a, b)
    return result


@func
def _reduce(arr: template(), out: template(), n, dtype: template(), op: template()):
    for _ in range(1):  # one serial pass: the sum is taken in index order
        acc = ops.cast(_identity(dtype, op), dtype)
        for i in range(n):
            acc = _combine(acc, ops.cast(arr[i], dtype), op)
        out[0] = acc


@func
def _exclusive_scan(arr: template(), out: template(), n, dtype: template(), op: template()):
    for _ in range(1):
        acc = ops.cast(_identity(dtype, op), dtype)
        for i in range(n):
            value = ops.cast(arr[i], dtype)
            out[i] = acc
            acc = _combine(acc, value, op)


@func
def reduce_add(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
               log256_max_n: template()):
    """out[0] = sum(arr[0:n]) (0 for n <= 0); call it at the top level of a kernel (upstream's signature)."""
    _checked(dtype, log256_max_n, "reduce_add()")
    _reduce(arr, out, n, dtype, "add")


@func
def reduce_min(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
               log256_max_n: template()):
    """out[0] = min(arr[0:n]) (the dtype's largest value, +inf for floats, for n <= 0)."""
    _checked(dtype, log256_max_n, "reduce_min()")
    _reduce(arr, out, n, dtype, "min")


@func
def reduce_max(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
               log256_max_n: template()):
    """out[0] = max(arr[0:n]) (the dtype's smallest value, -inf for floats, for n <= 0)."""
    _checked(dtype, log256_max_n, "reduce_max()")
    _reduce(arr, out, n, dtype, "max")


@func
def exclusive_scan_add(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
                       log256_max_n: template()):
    """out[i] = sum(arr[0:i]) for i < n (out[0] = 0); out must not be arr."""
    _checked(dtype, log256_max_n, "exclusive_scan_add()")
    _exclusive_scan(arr, out, n, dtype, "add")


@func
def exclusive_scan_min(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
                       log256_max_n: template()):
    """out[i] = min(arr[0:i]) for i < n (out[0]: the dtype's largest value, +inf for floats)."""
    _checked(dtype, log256_max_n, "exclusive_scan_min()")
    _exclusive_scan(arr, out, n, dtype, "min")


@func
def exclusive_scan_max(arr: template(), out: template(), scratch: template(), n: qdt.i32, dtype: template(),
                       log256_max_n: template()):
    """out[i] = max(arr[0:i]) for i < n (out[0]: the dtype's smallest value, -inf for floats)."""
    _checked(dtype, log256_max_n, "exclusive_scan_max()")
    _exclusive_scan(arr, out, n, dtype, "max")


@func
def select(arr: template(), flags: template(), out: template(), num_out: template(), scratch: template(),
           n: qdt.i32, log256_max_n: template()):
    """Stream compaction: the arr[i] whose flags[i] is non-zero, in order, to out[0:count]; count to num_out[0]."""
    _validate_log256_max_n(log256_max_n)
    for _ in range(1):
        count = 0
        for i in range(n):
            if flags[i] != 0:
                out[count] = arr[i]
                count += 1
        num_out[0] = count


@func
def reduce_by_key_add(keys_in: template(), values_in: template(), keys_out: template(), values_out: template(),
                      num_runs: template(), scratch: template(), n: qdt.i32, value_dtype: template(),
                      log256_max_n: template()):
    """Run-length reduction: each run of equal consecutive keys gives its key to keys_out[r] and the sum of its
    values to values_out[r]; the number of runs goes to num_runs[0]. values_out[0:n] is zeroed first, as upstream's
    (so the slots past the last run read 0); a NaN key is a run of its own (NaN != NaN)."""
    _checked(value_dtype, log256_max_n, "reduce_by_key_add()")
    for i in range(n):
        values_out[i] = ops.cast(0, value_dtype)
    for _ in range(1):
        runs = 0
        for i in range(n):
            starts = True
            if i > 0:
                starts = keys_in[i] != keys_in[i - 1]
            if starts:
                keys_out[runs] = keys_in[i]
                runs += 1
            values_out[runs - 1] += ops.cast(values_in[i], value_dtype)
        num_runs[0] = runs


__all__ = ["exclusive_scan_add", "exclusive_scan_max", "exclusive_scan_min", "reduce_add", "reduce_by_key_add",
           "reduce_max", "reduce_min", "select"]
