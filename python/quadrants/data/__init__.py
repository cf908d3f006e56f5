# python/quadrants/data/__init__.py: the data floor: vector/matrix/struct values, containers, ndarrays, SNodes and fields.
"""Floor 4 of the package: what holds data in Python scope. Vector, matrix and struct values
(`qd.Vector`, `qd.Matrix`, `qd.Struct`), fields (scalar, vector/matrix and struct fields, `qd.field`) with
their SNode layout tree (`qd.root` and `dense`/`pointer`/`bitmasked`/`dynamic`), ndarrays (`qd.ndarray`),
the `.grad` and `.dual` companions of both, and `qd.Tensor`. Kernels read these containers; how they are
read inside a kernel is the frontend's (floor 5). Its public names are re-exported by `quadrants`."""
