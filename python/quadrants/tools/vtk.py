# python/quadrants/tools/vtk.py: qd.tools.write_vtk: a 2-D or 3-D scalar field (or anything with to_numpy()) as a VTK
# rectilinear grid of cell data, through the optional pyevtk package (as upstream).
import numpy as np


def write_vtk(scalar_field, filename):
    """Writes `filename`.vtr with the field's values as cell data named `filename`; needs `pip install pyevtk`."""
    try:
        from pyevtk.hl import gridToVTK  # optional third-party library
    except ImportError:
        raise RuntimeError("qd.tools.write_vtk() needs pyevtk, which is not installed; install it with "
                           "`pip install pyevtk`.") from None
    values = scalar_field.to_numpy() if hasattr(scalar_field, "to_numpy") else np.asarray(scalar_field)
    if values.ndim not in (2, 3):
        raise ValueError(f"qd.tools.write_vtk() takes a 2-D or 3-D scalar field, but got one of shape {values.shape}.")
    if values.ndim == 2:  # one layer of cells: two z coordinates bound it
        values, z = values[np.newaxis, :, :], np.array([0, 1])
    else:
        z = np.arange(values.shape[2])
    gridToVTK(filename, x=np.arange(values.shape[0]), y=np.arange(values.shape[1]), z=z,
              cellData={filename: values})


__all__ = ["write_vtk"]
