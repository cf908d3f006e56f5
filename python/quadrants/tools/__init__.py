# python/quadrants/tools/__init__.py: qd.tools, upstream's utilities: PLYWriter (numpy data to PLY files),
# write_vtk (fields to VTK grids, through pyevtk) and diagnose (what a bug report needs about this machine).
"""qd.tools: PLYWriter (numpy data to PLY files), write_vtk (fields to VTK grids) and diagnose (system report)."""
from quadrants.tools import diagnose, np2ply, vtk  # noqa: F401
from quadrants.tools.np2ply import PLYWriter
from quadrants.tools.vtk import write_vtk

__all__ = ["PLYWriter", "diagnose", "np2ply", "vtk", "write_vtk"]
