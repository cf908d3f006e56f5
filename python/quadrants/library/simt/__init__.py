# python/quadrants/library/simt/__init__.py: qd.simt's block, subgroup, grid and tile operations inside kernels (lang/simt is upstream's path).
