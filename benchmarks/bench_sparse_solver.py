# benchmarks/bench_sparse_solver.py: qd.linalg.SparseSolver (LLT, LDLT) against SciPy's spsolve on a 2-D Poisson matrix.
"""Times a direct solve of the 5-point Poisson matrix of a grid x grid mesh (Dirichlet boundary: SPD), 10^6
unknowns by default, the same matrix and right-hand side for every row:

- quadrants LLT / LDLT: SparseSolver(qd.f64, solver_type, "AMD"): analyze_pattern + factorize + solve.
- scipy spsolve: scipy.sparse.linalg.spsolve(A.tocsc(), b), SuperLU with its default COLAMD column ordering
  (SciPy's default when scikit-umfpack is absent, as here).

Each row reports the median of --reps runs of analyze+factorize+solve, in wall time and in this process's CPU
time (rows interleaved, so machine load hits them alike; all three solvers are single-threaded, so CPU time
is the fairer figure on a shared machine), quadrants' phases, and the relative residual ||A x - b|| / ||b||
computed in float64. SciPy is needed
for this benchmark only (`pip install scipy`); quadrants does not depend on it.

Usage: python benchmarks/bench_sparse_solver.py [--grid 1000] [--reps 3]
"""

import argparse
import statistics
import time

import numpy as np

import quadrants as qd


def poisson_matrix(grid):
    """The Dirichlet 5-point Laplacian as a qd.linalg.SparseMatrix, filled by a kernel through a builder."""
    n = grid * grid
    builder = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=5 * n, dtype=qd.f64)

    @qd.kernel
    def fill(A: qd.types.sparse_matrix_builder()):
        for i, j in qd.ndrange(grid, grid):
            row = i * grid + j
            A[row, row] += 4.0
            if j != 0:
                A[row, row - 1] += -1.0
            if j != grid - 1:
                A[row, row + 1] += -1.0
            if i != 0:
                A[row, row - grid] += -1.0
            if i != grid - 1:
                A[row, row + grid] += -1.0

    fill(builder)
    return builder.build()


def residual(A, x, b):
    return float(np.linalg.norm(A._dot(x) - b) / np.linalg.norm(b))


def run_quadrants(A, b, solver_type):
    solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type=solver_type, ordering="AMD")
    c0 = time.process_time()
    t0 = time.perf_counter()
    solver.analyze_pattern(A)
    t1 = time.perf_counter()
    solver.factorize(A)
    t2 = time.perf_counter()
    assert solver.info(), f"{solver_type} failed to factorize"
    x = solver.solve(b)
    t3 = time.perf_counter()
    return {"total": t3 - t0, "cpu": time.process_time() - c0, "analyze": t1 - t0, "factorize": t2 - t1,
            "solve": t3 - t2, "x": x}


def run_scipy(A_scipy, b):
    from scipy.sparse.linalg import spsolve

    c0 = time.process_time()
    t0 = time.perf_counter()
    x = spsolve(A_scipy, b)
    return {"total": time.perf_counter() - t0, "cpu": time.process_time() - c0, "x": x}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grid", type=int, default=1000, help="grid side; the matrix has grid^2 unknowns")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    import scipy
    import scipy.sparse

    qd.init(arch=qd.cpu)
    A = poisson_matrix(args.grid)
    n = A.n
    A_scipy = scipy.sparse.csr_matrix((A._data, A._indices, A._indptr), shape=A.shape).tocsc()
    b = np.sin(np.arange(n) * 0.001) + 1.0
    print(f"2-D Poisson, {args.grid}x{args.grid} grid: {n} unknowns, {len(A._data)} stored entries; "
          f"numpy {np.__version__}, scipy {scipy.__version__}, {args.reps} reps")

    rows = {"quadrants LLT (AMD)": lambda: run_quadrants(A, b, "LLT"),
            "quadrants LDLT (AMD)": lambda: run_quadrants(A, b, "LDLT"),
            "scipy spsolve (SuperLU, COLAMD)": lambda: run_scipy(A_scipy, b)}
    samples = {name: [] for name in rows}
    for rep in range(args.reps):
        for name, run in rows.items():
            result = run()
            result["residual"] = residual(A, result.pop("x"), b)
            samples[name].append(result)
            phases = ", ".join(f"{k} {v:.2f} s" for k, v in result.items() if k not in ("total", "cpu", "residual"))
            print(f"  rep {rep}: {name}: {result['total']:.2f} s wall, {result['cpu']:.2f} s CPU "
                  f"({phases or 'one call'}), residual {result['residual']:.1e}", flush=True)

    scipy_runs = samples["scipy spsolve (SuperLU, COLAMD)"]
    scipy_wall = statistics.median(s["total"] for s in scipy_runs)
    scipy_cpu = statistics.median(s["cpu"] for s in scipy_runs)
    print("\n| solver | median wall s | median CPU s | analyze / factorize / solve wall s | residual "
          "| speed-up vs spsolve, CPU (wall) |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name, runs in samples.items():
        median = statistics.median(s["total"] for s in runs)
        cpu = statistics.median(s["cpu"] for s in runs)
        phases = (" / ".join(f"{statistics.median(s[k] for s in runs):.2f}" for k in ("analyze", "factorize", "solve"))
                  if "analyze" in runs[0] else "one call")
        worst = max(s["residual"] for s in runs)
        print(f"| {name} | {median:.1f} | {cpu:.1f} | {phases} | {worst:.1e} | {scipy_cpu / cpu:.2f}x "
              f"({scipy_wall / median:.2f}x) |")


if __name__ == "__main__":
    main()
