# python/quadrants/linalg/__init__.py: qd.linalg: sparse matrices (built by kernels), direct and CG solvers for
# them, and matrix-free Krylov solvers over fields.
"""`qd.linalg` (floor 8): sparse matrices built by kernels (`SparseMatrixBuilder`, `SparseMatrix`), a direct
solver and a conjugate-gradient solver for them (`SparseSolver`, `SparseCG`), and matrix-free Krylov
solvers over fields (`LinearOperator`, `MatrixFreeCG`, `MatrixFreeBICGSTAB`)."""
from quadrants.linalg.matrix_free import LinearOperator, MatrixFreeBICGSTAB, MatrixFreeCG
from quadrants.linalg.sparse_matrix import SparseMatrix, SparseMatrixBuilder
from quadrants.linalg.sparse_solver import SparseCG, SparseSolver

__all__ = ["LinearOperator", "MatrixFreeBICGSTAB", "MatrixFreeCG", "SparseCG", "SparseMatrix",
           "SparseMatrixBuilder", "SparseSolver"]
