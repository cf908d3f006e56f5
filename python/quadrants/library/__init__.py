# python/quadrants/library/__init__.py: the library floor: what is written in the kernel language: qd.math, qd.simt, solves and decompositions.
