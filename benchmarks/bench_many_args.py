# benchmarks/bench_many_args.py: the launcher's cost per array argument, by kind of array (numpy, qd.ndarray, qd.Tensor).
"""Times back-to-back calls of a kernel with N array parameters (default 100) of which it touches one, so the time
is the launch: Python's call, then the launcher's conversion of each argument. Genesis' kernels take 50-150 arrays,
as `qd.Tensor` members of frozen dataclasses. Each row is the best of --reps repetitions of the mean of --calls calls.

    python benchmarks/bench_many_args.py [--n 100] [--reps 5] [--calls 2000]
"""
import argparse
import importlib.util
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

import quadrants as qd


def load_kernel(n):
    """A kernel of n ndarray parameters touching the first (kernels need their source in a file)."""
    params = ", ".join(f"a{i}: qd.types.ndarray()" for i in range(n))
    text = f"import quadrants as qd\n\n\n@qd.kernel\ndef k({params}):\n    for i in range(1):\n        a0[i] += 1.0\n"
    path = Path(tempfile.mkdtemp(prefix="qd_bench_")) / "many_args.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("many_args", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["many_args"] = module
    spec.loader.exec_module(module)
    return module.k


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    kernel = load_kernel(args.n)
    ndarrays = [qd.ndarray(qd.f32, 4) for _ in range(args.n)]
    cases = [("numpy arrays", [np.zeros(4, np.float32) for _ in range(args.n)]),
             ("qd.ndarray", ndarrays),
             ("qd.Tensor(qd.ndarray)", [qd.Tensor(a) for a in ndarrays])]
    print(f"| {args.n} arguments of | us per call | ns per argument |")
    print("| --- | ---: | ---: |")
    for label, arrays in cases:
        kernel(*arrays)  # compiles
        best = min(timeit.repeat(lambda arrays=arrays: kernel(*arrays), number=args.calls, repeat=args.reps)) / args.calls
        print(f"| {label} | {best * 1e6:.2f} | {best / args.n * 1e9:.1f} |")
    qd.reset()


if __name__ == "__main__":
    main()
