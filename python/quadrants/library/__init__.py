# python/quadrants/library/__init__.py: the library floor: what is written in the kernel language: qd.math, qd.simt, solves and decompositions.
"""Floor 7 of the package: functions written in the kernel language, for use inside kernels. `qd.math`
(GLSL-style functions and the `vec2` ... `mat4` types, `math.py`), `qd.simt` (block, subgroup, grid and
tile operations, `simt/`), small dense solves (`qd.solve`) and decompositions (`qd.svd`,
`qd.polar_decompose`, `qd.sym_eig`, `qd.eig`, `qd.make_spd`)."""
