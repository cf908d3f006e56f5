# tests/python/test_upstream_surface_dir.py: dir() of qd, its modules and its classes lists upstream's names (what
# upstream's test_api.py compares), while quadrants' own names stay reachable, and the attributes upstream keeps
# per instance (shape, grad, n, ptr, ...) behave as before.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def test_dir_of_modules_leaves_out_floors_and_quadrants_only_names_which_stay_reachable():
    hidden = {qd: ["base", "data", "frontend", "runtime", "clear_cache", "cpp_kernel", "torch_op", "backend_of"],
              qd.math: ["abs", "exp2", "atan"], qd.ad: ["clear_all_duals"], qd.interop: ["cpp_kernels", "python_backend", "py_tensor", "python_struct_field"],
              qd.algorithms: ["BLOCK_DIM", "device_wide"], qd.graph: []}
    for module, names in hidden.items():
        assert not _public(module) & set(names), module
        assert all(hasattr(module, n) for n in names), module
    assert "contextmanager" not in dir(qd.graph)
    assert {"BitpackedFields", "Field", "ad", "math", "kernel"} <= _public(qd)
    assert "get_mps_command_queue" in dir(qd.interop) and qd.interop.get_mps_command_queue() == 0


def test_container_classes_list_methods_and_properties_only():
    for cls in (qd.Field, qd.ScalarField, qd.MatrixField, qd.StructField):
        assert {"shape", "dtype", "has_grad", "has_dual"} <= _public(cls)
        assert not {"grad", "dual", "element_type", "n", "m", "leaves"} & _public(cls), cls
    assert not {"to_numpy", "from_numpy", "to_torch", "from_torch", "dtype", "grad"} & _public(qd.Ndarray)
    assert {"to_numpy", "from_numpy", "shape"} <= _public(qd.ScalarNdarray) & _public(qd.VectorNdarray)


def test_per_instance_attributes_still_answer():
    x = qd.field(qd.f32, shape=(2, 3), needs_grad=True)
    v = qd.Vector.field(3, qd.f32, shape=4)
    a = qd.Matrix.ndarray(2, 3, qd.i32, shape=5)
    assert x.shape == (2, 3) and x.dtype == qd.f32 and x.element_type == qd.f32
    assert x.has_grad() and not x.has_dual() and isinstance(x.grad, qd.ScalarField) and x.dual is not None
    assert (v.n, v.m, v.element_type) == (3, 1, qd.types.vector(3, qd.f32)) and v.shape == (4,)
    assert (a.n, a.m, a.dtype, a.shape, a.grad) == (2, 3, qd.i32, (5,), None)
    with pytest.raises(AttributeError):
        x.shape = (6,)  # read-only, as upstream's property
    lazy = qd.field(qd.f32)
    qd.root.dense(qd.i, 4).place(lazy)
    assert lazy.grad is not None and not lazy.has_grad()  # made, not placed


def test_struct_fields_keep_their_element_type():
    s = qd.Struct.field({"p": qd.math.vec2, "m": qd.f32}, shape=3)
    assert s.dtype is s.element_type and set(s.element_type.members) == {"p", "m"}
    assert s.shape == (3,) and not s.has_grad()


def test_matrix_swizzles_are_class_properties_and_derived_attributes_are_computed():
    assert {"x", "xy", "rgba", "stpq", "wzyx"} <= _public(qd.Matrix)
    assert not {"n", "m", "ndim", "entries", "T"} & _public(qd.Matrix)
    v = qd.Vector([1.0, 2.0, 3.0])
    assert v.zyx.to_list() == [3.0, 2.0, 1.0] and (v.n, v.m, v.ndim) == (3, 1, 1)
    v.xy = (7.0, 8.0)
    assert v.to_list() == [7.0, 8.0, 3.0]
    assert not hasattr(v, "w")  # a 3-vector has no fourth component
    m = qd.Matrix([[1, 2], [3, 4]])
    assert m.T.to_list() == [[1, 3], [2, 4]] and np.array_equal(m.entries, [[1, 2], [3, 4]])


def test_snode_and_fields_builder_attributes():
    fb = qd.FieldsBuilder()
    x = qd.field(qd.f32)
    fb.dense(qd.i, 4).place(x)
    fb.lazy_grad()
    assert "ptr" not in _public(qd.SNode) and "finalized" not in _public(qd.FieldsBuilder)
    assert fb.finalized is False
    fb.finalize()
    assert fb.finalized is True and x.has_grad()
    assert x.snode.ptr.has_adjoint()


def test_elements_have_tolist_as_upstreams_python_backend_tensors_do():
    v = qd.Vector.field(3, qd.i32, shape=2)
    v[1] = (5, 4, 3)
    m = qd.Matrix.ndarray(2, 2, qd.f32, shape=1)
    m[0] = [[1, 2], [3, 4]]
    assert v[1].tolist() == [5, 4, 3] and m[0].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert qd.Vector([1, 2]).tolist() == [1, 2] and "tolist" not in dir(qd.Matrix)
