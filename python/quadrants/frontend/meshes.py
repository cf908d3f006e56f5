# python/quadrants/frontend/meshes.py: upstream's mesh names (qd.Mesh, qd.MeshInstance, qd.mesh_local,
# qd.mesh_patch_idx), which quadrants does not have.
#
# Upstream's meshes (from MeshTaichi) are a data structure of their own: a mesh's elements are split into patches,
# kernels loop over them with mesh-for loops, and its compiler passes cache attributes per patch. quadrants has
# none of that (no mesh SNodes, no mesh-for loops, no patch passes), so every entry point raises and names why,
# rather than building something that would silently be something else.
from quadrants.frontend.builtins import Builtin

_WHY = ("quadrants has no meshes: upstream's qd.Mesh (MeshTaichi's mesh data structure, its mesh-for loops and "
        "per-patch caching) is not implemented here")
_HINT = ("store the mesh's vertices, faces and adjacency in fields or ndarrays and loop over them with ordinary "
         "parallel for loops")


def _unsupported(what):
    return NotImplementedError(f"{what}: {_WHY}. Instead, {_HINT}.")


class _MeshBuilders(type):
    """Every attribute upstream's qd.Mesh has (tri, tet, load_meta, generate_meta, ...) raises when used."""

    def __getattr__(cls, name):
        if name.startswith("_"):  # Python's and tools' probes (copy, pickle, sphinx) are no mesh builders
            raise AttributeError(name)
        raise _unsupported(f"qd.Mesh.{name}")


class Mesh(metaclass=_MeshBuilders):
    """Upstream's mesh builder: not available in quadrants (see the module's head)."""

    def __init__(self, *args, **kwargs):
        raise _unsupported("qd.Mesh()")


class MeshInstance:
    """Upstream's built mesh: not available in quadrants (see the module's head)."""

    def __init__(self, *args, **kwargs):
        raise _unsupported("qd.MeshInstance()")


def _kernel_mesh_builtin(name):
    def python_impl(*args, **kwargs):
        raise _unsupported(f"qd.{name}()")

    def impl(ops, *args, **kwargs):
        raise ops.tr.fail(f"qd.{name}() is not supported: {_WHY}", hint=_HINT + ".", kind="syntax")

    return Builtin(name, python_impl, "composite", impl=impl)


mesh_local = _kernel_mesh_builtin("mesh_local")
mesh_patch_idx = _kernel_mesh_builtin("mesh_patch_idx")
mesh_local.__doc__ = ("mesh_local(*args)\n\nUpstream's hint to cache mesh attributes in mesh-for loops: raises, as "
                      "quadrants has no meshes.")
mesh_patch_idx.__doc__ = ("mesh_patch_idx()\n\nUpstream's mesh patch index in mesh-for loops: raises, as quadrants "
                          "has no meshes.")

__all__ = ["Mesh", "MeshInstance", "mesh_local", "mesh_patch_idx"]
