# python/quadrants/algorithms/prefix_sum.py: upstream's deprecated qd.algorithms.PrefixSumExecutor, an inclusive
# in-place prefix sum of the first `length` i32 values of a field or ndarray.
#
# Upstream runs it on CUDA and Vulkan only (a warp-shuffle scan) and raises elsewhere; here it runs on the CPU and
# CUDA as one serial pass in a kernel, with upstream's deprecation warning and dtype check.
import warnings

from quadrants.algorithms.parallel_sort import _base_index
from quadrants.base import dtypes as qdt
from quadrants.kernels.kernel import kernel
from quadrants.types.annotations import template


@kernel
def _inclusive_scan(arr: template(), base: qdt.i32, n: qdt.i32):
    for _ in range(1):  # one serial pass
        acc = 0
        for i in range(base, base + n):
            acc += arr[i]
            arr[i] = acc


class PrefixSumExecutor:
    """Inclusive in-place prefix sum of `length` i32 values: PrefixSumExecutor(n).run(x). Deprecated upstream in
    favour of qd.algorithms.exclusive_scan_add (a @qd.func for use inside kernels)."""

    def __init__(self, length):
        warnings.warn("qd.algorithms.PrefixSumExecutor is deprecated. Use qd.algorithms.exclusive_scan_add (the "
                      "@qd.func) instead.", DeprecationWarning, stacklevel=2)
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise ValueError(f"PrefixSumExecutor(length): length must be a non-negative int, but got {length!r}.")
        self.sorting_length = length

    def run(self, input_arr):
        """Replaces each of the first `length` values with the sum of it and those before it (from the first
        index: a field made with offset= starts there)."""
        if getattr(input_arr, "dtype", None) != qdt.i32:
            raise RuntimeError("Only qd.i32 type is supported for prefix sum.")
        if self.sorting_length > input_arr.shape[0]:
            raise ValueError(f"PrefixSumExecutor({self.sorting_length}).run(): the array holds only "
                             f"{input_arr.shape[0]} values.")
        _inclusive_scan(input_arr, _base_index(input_arr), self.sorting_length)
