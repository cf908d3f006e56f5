# tests/python/test_compat_modules.py: upstream's module paths (quadrants._tensor, quadrants.lang._ndrange,
# quadrants.lang.field, quadrants.lang.matrix) name our implementations and behave as upstream's.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_tensor_module_names_are_qd_objects():
    import quadrants._tensor as tensor_module

    assert tensor_module.Tensor is qd.Tensor and tensor_module.Backend is qd.Backend
    assert tensor_module.tensor is qd.tensor
    assert isinstance(tensor_module._tensor_vec(3, qd.f32, (2,)), qd.VectorTensor)
    assert isinstance(tensor_module._tensor_mat(2, 2, qd.f32, (2,), backend=qd.Backend.FIELD), qd.MatrixTensor)
    assert tensor_module._layout_to_order((1, 0), 2) == "ji" and tensor_module._layout_to_order((0, 1), 2) is None


def test_with_layout_rejects_fields():
    from quadrants._tensor import _with_layout

    with pytest.raises(TypeError, match="order="):
        _with_layout(qd.field(qd.f32, (2, 3)), (1, 0))


def test_ndrange_module_iterates_in_axes_order():
    from quadrants.lang._ndrange import GroupedNDRange, _Ndrange, ndrange

    r = _Ndrange(2, 3, axes=(1, 0))
    assert r.axes == (1, 0) and _Ndrange(2, 3, axes=(0, 1)).axes is None
    order = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]  # the first axis innermost
    assert list(r) == order
    grouped = r.grouped()
    assert isinstance(grouped, GroupedNDRange)
    assert [tuple(v.to_list()) for v in grouped] == order
    assert [tuple(v.to_list()) for v in qd.grouped(ndrange(2, 3, axes=(1, 0)))] == order
    assert [tuple(v.to_list()) for v in _Ndrange(3).grouped()] == [(0,), (1,), (2,)]


def test_lang_field_adapter_hands_capsules_to_numpy():
    from quadrants.lang.field import Field, _DLPackV1Adapter

    f = qd.Matrix.field(2, 3, qd.f32, shape=(2,))
    assert isinstance(f, Field)
    data = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    f.from_numpy(data)
    for versioned in (False, True):
        adapter = _DLPackV1Adapter(f.to_dlpack(versioned=versioned))
        assert adapter.__dlpack_device__() == f.__dlpack_device__()
        if f.__dlpack_device__()[0] == 1:
            np.testing.assert_array_equal(np.from_dlpack(adapter), data)


def test_capsule_device_rejects_consumed_capsules():
    from quadrants.runtime.dlpack import capsule_device

    capsule = qd.ndarray(qd.f32, (2,)).to_dlpack()
    assert capsule_device(capsule)[0] in (1, 2)
    with pytest.raises(TypeError, match="capsule"):
        capsule_device(object())


def test_lang_matrix_module():
    import itertools

    matrix = qd.lang.matrix  # reachable as an attribute, as upstream's test_api does
    assert matrix.Matrix is qd.Matrix and matrix.Vector is qd.Vector and matrix.MatrixField is qd.MatrixField
    assert matrix.MatrixNdarray is qd.MatrixNdarray and matrix.VectorNdarray is qd.VectorNdarray
    assert isinstance(qd.types.vector(3, qd.f32), matrix.MatrixType)
    patterns = matrix._generate_swizzle_patterns("xyzw", required_length=4)
    assert len(patterns) == 4 + 4**2 + 4**3 + 4**4 and patterns[:5] == ["x", "y", "z", "w", "xx"]
    v = qd.Vector([1, 2, 3, 4])
    for name in itertools.islice(patterns, 0, None, 37):  # every swizzle it lists is one our vectors answer
        assert list(getattr(v, name) if len(name) > 1 else [getattr(v, name)]) == ["xyzw".index(c) + 1 for c in name]


def test_unknown_lang_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_module'"):
        qd.lang.not_a_module
