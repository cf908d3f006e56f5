# examples/scale_out/chunk_kernels.py: the kernels that the scale-out examples send to their workers.
"""Kernels pickle by reference: a worker process imports this module by name and takes the kernel from it,
then compiles it or loads it from the disk cache that every worker shares. So kernels meant for workers live in
a module the workers can import, not in the `__main__` script that starts them."""
import quadrants as qd


@qd.kernel
def smooth_chunk(src: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    """out[i] = a three-point average of src, with the ends held: one step of 1D diffusion on a chunk."""
    n = src.shape[0]
    for i in src:
        left = src[qd.max(i - 1, 0)]
        right = src[qd.min(i + 1, n - 1)]
        out[i] = 0.25 * left + 0.5 * src[i] + 0.25 * right


@qd.kernel
def chunk_energy(x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f64:
    """The sum of squares of a chunk, accumulated in float64."""
    total = qd.cast(0.0, qd.f64)  # a plain 0.0 would be a default_fp (f32) local
    for i in x:
        total += qd.cast(x[i], qd.f64) * qd.cast(x[i], qd.f64)
    return total
