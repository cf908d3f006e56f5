# tests/python/test_matrix_entry_types.py: vector/matrix fields with one dtype per entry (dtype=[[...]]).
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _packed_rows(field, rows, cells=1):
    """Bit-packs each row's entries into one 32-bit word per cell, as upstream's test does."""
    for i in range(rows):
        bitpack = qd.BitpackedFields(max_num_bits=32)
        bitpack.place(*[field.get_scalar_field(i, j) for j in range(field.m)])
        qd.root.dense(qd.i, cells).place(bitpack)


def test_matrix_of_different_quant_types_computes_in_their_common_type():
    qfl = qd.types.quant.float(exp=8, frac=5, signed=True)
    qfx = qd.types.quant.fixed(bits=10, signed=True, scale=0.1)
    types = [[qfl, qfx], [qfl, qfx]]
    a, b, c = (qd.Matrix.field(2, 2, dtype=types) for _ in range(3))
    for f in (a, b, c):
        _packed_rows(f, 2)
    assert a.dtype == qd.f32
    assert a.get_scalar_field(0, 0)._quant_type == qfl and a.get_scalar_field(0, 1)._quant_type == qfx

    @qd.kernel
    def add():
        a[0] = [[1.0, 3.0], [2.0, 1.0]]
        b[0] = [[2.0, 4.0], [-2.0, 1.0]]
        c[0] = a[0] + b[0]

    add()
    np.testing.assert_allclose(c.to_numpy()[0], [[3.0, 7.0], [0.0, 2.0]], rtol=1e-6)
    # the fixed-point entry keeps its scale of 0.1 in Python scope too
    c[0] = [[1.5, 0.26], [0.0, -0.3]]
    assert c[0][0, 1] == pytest.approx(0.3)
    assert c[0][1, 1] == pytest.approx(-0.3)


def test_vector_of_mixed_entries_in_python_scope_and_kernels():
    qfl = qd.types.quant.float(exp=8, frac=5, signed=True)
    qfx = qd.types.quant.fixed(bits=10, signed=True, scale=0.1)
    w = qd.Vector.field(2, dtype=[qfl, qfx])
    bitpack = qd.BitpackedFields(max_num_bits=32)
    bitpack.place(w.get_scalar_field(0), w.get_scalar_field(1))
    qd.root.dense(qd.i, 3).place(bitpack)
    w[2] = [1.5, 2.5]

    @qd.kernel
    def double() -> qd.f32:
        w[1] = w[2] * 2
        return w[1][0] + w[1][1]

    assert double() == pytest.approx(8.0)
    np.testing.assert_allclose(w.to_numpy(), [[0, 0], [3.0, 5.0], [1.5, 2.5]], rtol=1e-6)


def test_entries_that_compute_in_different_types_are_refused():
    qi = qd.types.quant.int(bits=10, signed=True)
    qfx = qd.types.quant.fixed(bits=10, signed=True, scale=0.1)
    with pytest.raises(RuntimeError, match=r"Member fields of a matrix field must have the same compute type.*"
                                           r"entry \(1,\) is qfx"):
        qd.Vector.field(2, dtype=[qi, qfx])
    with pytest.raises(qd.QuadrantsRuntimeError, match="same compute type"):
        qd.Vector.field(2, dtype=[qd.f32, qd.i32])


def test_one_dtype_per_entry_collapses_to_a_plain_field():
    v = qd.Vector.field(2, dtype=[qd.f32, qd.f32], shape=4)
    v[1] = [1, 2]
    assert v.dtype == qd.f32 and v.to_numpy()[1].tolist() == [1.0, 2.0]
    assert v._entry_quants is None


def test_dtype_list_of_the_wrong_shape_is_refused():
    qfl = qd.types.quant.float(exp=8, frac=5, signed=True)
    with pytest.raises(ValueError, match=r"dtype list must have the shape of its elements, \(3,\)"):
        qd.Vector.field(3, dtype=[qfl, qfl])
    with pytest.raises(ValueError, match=r"\(2, 2\)"):
        qd.Matrix.field(2, 2, dtype=[qfl, qfl])


def test_mixed_entries_placed_as_a_whole_place_each_entry():
    qfl = qd.types.quant.float(exp=8, frac=5, signed=True)
    # each quantized entry is placed on its own, which needs a bit-packed word: the error says so
    with pytest.raises(qd.QuadrantsRuntimeError, match="place it through qd.BitpackedFields"):
        qd.Vector.field(2, dtype=[qfl, qd.f32], shape=4)
    with pytest.raises(ValueError, match="needs_grad= is not supported"):
        qd.Vector.field(2, dtype=[qfl, qd.f32], needs_grad=True)
