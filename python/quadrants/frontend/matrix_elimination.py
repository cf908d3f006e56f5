# python/quadrants/frontend/matrix_elimination.py: m.inverse() of a 5x5 to 12x12 matrix inside kernels, by Gauss
# elimination with partial pivoting, unrolled at compile time (sizes 2-4 use cofactors, vector_ops.py).
#
# Upstream Quadrants inverts these sizes this way, for the block preconditioners of IPC solvers. Only the pivot
# rows are runtime values: each row swap is written as selects on `pivot == r`, so the code has no branches
# and the same IR runs on every arch. Every step's entries go into temporaries (tr.snapshot): without them each
# entry's expression would nest the whole elimination before it.

MAX_ELIMINATION_SIZE = 12  # upstream's limit for m.inverse()


def inverse_by_elimination(ops, tr, rows):
    """The inverse of the square matrix `rows` (lists of scalar entries) as lists of rows.

    The pivot of column k is the first row at or below k whose entry has the largest magnitude; a singular
    matrix divides by zero (inf or nan entries), as the cofactor formulas of the smaller sizes do."""
    n = len(rows)
    keep = tr.snapshot
    a = [[keep(x) for x in row] for row in rows]
    b = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]  # gets the row operations done to a
    for k in range(n):
        pivot = _pivot_row(ops, keep, a, k)
        if k + 1 < n:
            a, b = _swap_rows(ops, keep, a, k, pivot), _swap_rows(ops, keep, b, k, pivot)
        for i in range(k + 1, n):
            factor = keep(ops.bin("truediv", a[i][k], a[k][k]))
            for j in range(k + 1, n):
                a[i][j] = keep(ops.bin("sub", a[i][j], ops.bin("mul", factor, a[k][j])))
            b[i] = [keep(ops.bin("sub", b[i][j], ops.bin("mul", factor, b[k][j]))) for j in range(n)]
    # a is now upper triangular: solve a @ x = b column by column, from the last row up.
    inverse = [[None] * n for _ in range(n)]
    for column in range(n):
        for i in range(n - 1, -1, -1):
            total = b[i][column]
            for j in range(i + 1, n):
                total = ops.bin("sub", total, ops.bin("mul", a[i][j], inverse[j][column]))
            inverse[i][column] = keep(ops.bin("truediv", total, a[i][i]))
    return inverse


def _pivot_row(ops, keep, a, k):
    """The runtime index of the row at or below k with the largest |a[r][k]| (the first of equals)."""
    pivot, largest = k, keep(ops.un("abs", a[k][k]))
    for r in range(k + 1, len(a)):
        magnitude = keep(ops.un("abs", a[r][k]))
        larger = keep(ops.bin("gt", magnitude, largest))
        largest = keep(ops.select(larger, magnitude, largest))
        pivot = keep(ops.select(larger, r, pivot))
    return pivot


def _swap_rows(ops, keep, m, k, pivot):
    """m with rows k and `pivot` (a runtime row index >= k) exchanged."""
    n = len(m)
    is_pivot = {r: keep(ops.bin("eq", pivot, r)) for r in range(k + 1, n)}
    swapped = [list(row) for row in m]
    for j in range(len(m[k])):
        entry = m[k][j]
        for r in range(k + 1, n):
            entry = ops.select(is_pivot[r], m[r][j], entry)
        swapped[k][j] = keep(entry)
        for r in range(k + 1, n):
            swapped[r][j] = keep(ops.select(is_pivot[r], m[k][j], m[r][j]))
    return swapped
