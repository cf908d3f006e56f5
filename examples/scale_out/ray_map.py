# examples/scale_out/ray_map.py: a quadrants kernel mapped over the chunks of an array by Ray worker processes
# (a local Ray instance) that share one kernel cache.
"""Each Ray actor is one worker process: it starts its own CPU runtime (qd.init in its constructor), receives
kernels by reference (see chunk_kernels.py) and compiles them once or loads them from the shared disk cache;
the first worker to finish a compile publishes it atomically, and the others read it verified.

    pip install ray
    python examples/scale_out/ray_map.py [--n 1000000] [--chunks 8] [--workers 2]

Prints the largest difference from numpy for the smoothed array, the relative error of the energy, and which
worker processes ran chunks.
"""
import argparse
import os
import sys

import numpy as np
import ray

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import chunk_kernels  # noqa: E402


@ray.remote(num_cpus=1)
class ChunkWorker:
    """One process, one CPU runtime with one thread: Ray already runs one actor per core given to it."""

    def __init__(self):
        import quadrants as qd

        qd.init(arch=qd.cpu, cpu_max_num_threads=1)

    def smooth(self, kernel, chunk):
        # Ray hands over numpy arrays read-only (zero-copy from its object store): the kernel reads chunk and
        # writes a fresh array.
        out = np.empty_like(chunk)
        kernel(chunk, out)
        return os.getpid(), out

    def energy(self, kernel, chunk):
        return kernel(chunk)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    # Workers import chunk_kernels by name, so its folder goes on their path; they see the driver's
    # QD_CACHE_DIR, if any, so that all of them share the cache the driver names.
    env = {"PYTHONPATH": os.pathsep.join(p for p in (HERE, os.environ.get("PYTHONPATH")) if p)}
    if "QD_CACHE_DIR" in os.environ:
        env["QD_CACHE_DIR"] = os.environ["QD_CACHE_DIR"]
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": env})
    try:
        data = np.random.default_rng(0).standard_normal(args.n).astype(np.float32)
        chunks = np.array_split(data, args.chunks)
        workers = [ChunkWorker.remote() for _ in range(args.workers)]
        refs = [ray.put(c) for c in chunks]
        pick = [workers[k % len(workers)] for k in range(len(chunks))]
        smoothed = ray.get([w.smooth.remote(chunk_kernels.smooth_chunk, r) for w, r in zip(pick, refs)])
        energies = ray.get([w.energy.remote(chunk_kernels.chunk_energy, r) for w, r in zip(pick, refs)])
    finally:
        ray.shutdown()

    expected = [0.25 * np.concatenate([c[:1], c[:-1]]) + 0.5 * c + 0.25 * np.concatenate([c[1:], c[-1:]])
                for c in chunks]
    smooth_error = max(float(np.max(np.abs(s - e))) for (_, s), e in zip(smoothed, expected))
    exact = float(np.sum(data.astype(np.float64) ** 2))
    print(f"chunks: {len(chunks)}, workers: {args.workers}")
    print(f"worker processes that ran chunks: {len({pid for pid, _ in smoothed})}")
    print(f"smooth: max difference from numpy {smooth_error:.3g}")
    print(f"energy: relative error {abs(sum(energies) - exact) / exact:.3g}")


if __name__ == "__main__":
    main()
