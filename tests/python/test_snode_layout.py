# tests/python/test_snode_layout.py: upstream's SNode layout inspection (snode._cell_size_bytes,
# snode._offset_bytes_in_parent_cell), numbers checked against upstream Quadrants 1.3.3's own.
"""A dense cell is a C struct of its children in the order they were added (a field's element, or a child node's
array of cells), each aligned to itself and the whole padded to its largest member; a quantized pack counts as its
word. Sparse nodes, whose upstream cells hold pointers and masks not modelled here, are refused with a message."""

import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_cells_are_padded_structs_of_their_children():
    a, b, d = qd.field(qd.u8), qd.field(qd.f64), qd.field(qd.i32)
    c = qd.Vector.field(3, dtype=qd.i16)
    n1 = qd.root.dense(qd.i, 5)
    n1.place(a)
    n2 = n1.dense(qd.j, 3)
    n2.place(b, c)
    n1.place(d)
    n3 = qd.root.dense(qd.ij, (2, 7)).place(qd.Matrix.field(2, 2, dtype=qd.f32))
    # upstream 1.3.3 gives the same numbers for this tree
    assert [(n._cell_size_bytes, n._offset_bytes_in_parent_cell) for n in (n1, n2, n3)] == [(64, 0), (16, 8),
                                                                                           (16, 320)]
    assert [f.snode._offset_bytes_in_parent_cell for f in (a, b, d)] == [0, 0, 56]
    assert c.snode._offset_bytes_in_parent_cell == 8 and b.snode._cell_size_bytes == 8


def test_a_bitpacked_pack_counts_as_its_word():
    bitpack = qd.BitpackedFields(max_num_bits=16)
    bitpack.place(qd.field(dtype=qd.types.quant.int(5)), qd.field(dtype=qd.types.quant.int(9, False)))
    node = qd.root.dense(qd.i, 3)
    small, big = qd.field(qd.u8), qd.field(qd.f64)
    node.place(small)
    node.place(bitpack)
    node.place(big)
    assert node._cell_size_bytes == 16  # u8 at 0, the u16 word at 2, f64 at 8 (as upstream)
    assert big.snode._offset_bytes_in_parent_cell == 8
    array = qd.root.dense(qd.i, 2).quant_array(qd.i, 4, max_num_bits=32)
    array.place(qd.field(dtype=qd.types.quant.int(8)))
    assert array.parent()._cell_size_bytes == 4


def test_sparse_nodes_are_refused():
    node = qd.root.pointer(qd.i, 4)
    node.place(qd.field(qd.f32))
    with pytest.raises(NotImplementedError, match="pointer SNode's cell in upstream's layout holds pointers"):
        node._cell_size_bytes
