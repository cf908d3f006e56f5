# examples/scale_out/dask_map.py: a quadrants kernel mapped over the chunks of an array by a dask.distributed
# LocalCluster of worker processes that share one kernel cache.
"""Each worker process starts its own CPU runtime (qd.init in a worker plugin), receives kernels by reference
(see chunk_kernels.py), and compiles them once or loads them from the shared disk cache: the first worker to
finish a compile publishes it atomically, and any other reads it verified.

    pip install "dask[distributed]"
    python examples/scale_out/dask_map.py [--n 1000000] [--chunks 8] [--workers 2]

Prints the largest difference from numpy for the smoothed array and the relative error of the energy.
"""
import argparse
import os
import sys

import numpy as np
from dask.distributed import Client, LocalCluster, WorkerPlugin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # workers inherit it and import chunk_kernels

import chunk_kernels  # noqa: E402


class QuadrantsRuntime(WorkerPlugin):
    """Starts quadrants' CPU runtime in each worker, one thread each: dask already runs one task per core."""

    def setup(self, worker):
        import quadrants as qd

        qd.init(arch=qd.cpu, cpu_max_num_threads=1)


def aligned(chunk):
    """dask hands a task its array over the received bytes, often at an odd offset; a kernel would take it
    through an aligned copy (and warn once), so make the copy here, only when it is needed."""
    return np.require(chunk, requirements="A")


def smooth(kernel, chunk):
    chunk = aligned(chunk)
    out = np.empty_like(chunk)
    kernel(chunk, out)
    return out


def energy(kernel, chunk):
    return kernel(aligned(chunk))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    data = np.random.default_rng(0).standard_normal(args.n).astype(np.float32)
    chunks = np.array_split(data, args.chunks)
    # The scheduler's HTTP server always starts; ":0" gives it a free port, where the default (8787) warns when another
    # cluster, or another run of this script, holds it.
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.register_plugin(QuadrantsRuntime())
        smoothed = client.gather(client.map(smooth, [chunk_kernels.smooth_chunk] * len(chunks), chunks))
        energies = client.gather(client.map(energy, [chunk_kernels.chunk_energy] * len(chunks), chunks))

    expected = [0.25 * np.concatenate([c[:1], c[:-1]]) + 0.5 * c + 0.25 * np.concatenate([c[1:], c[-1:]])
                for c in chunks]
    smooth_error = max(float(np.max(np.abs(s - e))) for s, e in zip(smoothed, expected))
    exact = float(np.sum(data.astype(np.float64) ** 2))
    print(f"chunks: {len(chunks)}, workers: {args.workers}")
    print(f"smooth: max difference from numpy {smooth_error:.3g}")
    print(f"energy: relative error {abs(sum(energies) - exact) / exact:.3g}")


if __name__ == "__main__":
    main()
