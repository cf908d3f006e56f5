# python/quadrants/data/bitpacked.py: qd.BitpackedFields and SNode.quant_array: quantized fields packed into words.
#
# Fields of quantized types (types/quant.py) have no array of their own. Their bits live in a physical field of
# unsigned words (u8, u16, u32 or u64, as max_num_bits says), an ordinary field placed in the node the pack is
# placed in, so it gets storage, sparse activity and FieldsBuilder finalization like any field:
# - qd.BitpackedFields: one word per cell of that node holds every member, each at its own bit offset (a quantized
#   float has its exponent bits and digit bits; `shared_exponent=True` gives a group of floats one exponent);
# - node.quant_array(axes, dims, max_num_bits): the extents of a quant_array node split each word into elements of
#   one field, so the field is finer than the words: element I is in word I // dims, at position I % dims
#   (row-major over the node's axes) times the field's bits.
# Each member gets a place node of its own (under a "bit_struct" node, or the quant_array node), so its shape,
# x.parent(), struct-for loops and activity are those of any field; its `_quant` (a QuantBinding) says where its
# bits are. Kernels read and write the words (frontend/quant_access.py); Python scope goes through QuantBinding.
import numbers

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsRuntimeError, QuadrantsSyntaxError
from quadrants.data import quant_codec
from quadrants.data.field import Field, ScalarField
from quadrants.data.field_components import all_members
from quadrants.data.snode import SNode
from quadrants.types.quant import QuantFloat

WORD_DTYPES = {8: "u8", 16: "u16", 32: "u32", 64: "u64"}


class Slot:
    """Where one member's bits are in its word: `shift` of its (digit) bits, and for a float `exponent_shift`;
    `group` is the SharedExponent it belongs to, if any."""

    def __init__(self, qtype, shift, exponent_shift=None, group=None):
        self.qtype, self.shift, self.exponent_shift, self.group = qtype, shift, exponent_shift, group

    @property
    def bits(self):
        """The member's own bits (a float's digits; its exponent is `exponent_shift`'s)."""
        return self.qtype.digits.bits if isinstance(self.qtype, QuantFloat) else self.qtype.bits

    def describe(self):
        group = self.group.shift if self.group is not None else None
        return (repr(self.qtype), self.shift, self.exponent_shift, group)


class SharedExponent:
    """Floats of one BitpackedFields.place(..., shared_exponent=True): one exponent (of the first's width) at
    `shift`, and the members' slots in placement order."""

    def __init__(self, shift, bits):
        self.shift, self.bits, self.slots, self.fields = shift, bits, [], []


def _check_max_bits(max_num_bits):
    if not isinstance(max_num_bits, numbers.Integral) or max_num_bits not in WORD_DTYPES:
        raise ValueError(f"max_num_bits must be 8, 16, 32 or 64 (the width of the word the fields are packed into), "
                         f"but got {max_num_bits!r}.")
    return int(max_num_bits)


def _members_of(item, what):
    """The scalar quantized fields an argument of place() stands for (a vector/matrix field: each component)."""
    if not isinstance(item, Field):
        raise QuadrantsRuntimeError(f"{what} takes fields of quantized types (qd.types.quant), but got "
                                    f"{type(item).__name__}.")
    members = all_members(item) if item._element_shape else [item]
    for member in members:
        if member._quant_type is None:
            raise QuadrantsRuntimeError(f"{what} takes fields of quantized types (qd.types.quant), but "
                                        f"{member._describe()} is of dtype {member.dtype.name}.")
        if member._place_node is not None or member._quant is not None:
            raise QuadrantsRuntimeError(f"{member._describe()} is placed already; a field can be placed once.")
    return members


class BitpackedFields:
    """Fields of quantized types packed into one word of `max_num_bits` bits (8, 16, 32 or 64) per cell:
    bitpack.place(x, y) adds members, node.place(bitpack) gives them that node's cells."""

    def __init__(self, max_num_bits):
        self.max_num_bits = _check_max_bits(max_num_bits)
        self._used = 0
        self._members = []  # (field, Slot) in placement order
        self._node = None

    def place(self, *fields, shared_exponent=False):
        """Adds fields of quantized types, each at the next free bits; with shared_exponent=True they must be
        quantized floats (at least two), which then share the first one's exponent bits."""
        if self._node is not None:
            raise QuadrantsRuntimeError("BitpackedFields.place(): this BitpackedFields is placed in an SNode already; "
                                        "add every field before placing it.")
        members = [m for item in fields for m in _members_of(item, "BitpackedFields.place()")]
        if len({id(m) for m in members}) != len(members) or any(m is f for f, _ in self._members for m in members):
            raise QuadrantsRuntimeError("BitpackedFields.place(): a field is given twice.")
        if shared_exponent:
            self._place_shared(members)
            return self
        for member in members:
            qtype = member._quant_type
            if isinstance(qtype, QuantFloat):
                exponent_shift = self._take(qtype.exponent.bits)
                self._members.append((member, Slot(qtype, self._take(qtype.digits.bits), exponent_shift)))
            else:
                self._members.append((member, Slot(qtype, self._take(qtype.bits))))
        return self

    def _place_shared(self, members):
        if len(members) < 2:
            raise QuadrantsSyntaxError("At least 2 fields need to be placed when shared_exponent=True")
        for member in members:
            if not isinstance(member._quant_type, QuantFloat):
                raise QuadrantsRuntimeError(f"BitpackedFields.place(shared_exponent=True) takes quantized floats "
                                            f"(qd.types.quant.float), but {member._describe()} is "
                                            f"{member._quant_type!r}.")
        exponent_bits = members[0]._quant_type.exponent.bits
        group = SharedExponent(self._take(exponent_bits), exponent_bits)
        for member in members:
            slot = Slot(member._quant_type, self._take(member._quant_type.digits.bits), group.shift, group)
            group.slots.append(slot)
            group.fields.append(member)
            self._members.append((member, slot))

    def _take(self, bits):
        shift = self._used
        if shift + bits > self.max_num_bits:
            raise QuadrantsRuntimeError(f"BitpackedFields(max_num_bits={self.max_num_bits}): the fields placed need "
                                        f"{shift + bits} bits, more than the word holds.")
        self._used += bits
        return shift

    def _qd_place_in(self, node):
        """node.place(bitpack) (snode.py): the word field in `node`, the members under a bit_struct node."""
        if self._node is not None:
            raise QuadrantsRuntimeError("This BitpackedFields is placed already; a BitpackedFields can be placed once.")
        if not self._members:
            raise QuadrantsRuntimeError("BitpackedFields: place fields in it (bitpack.place(x, ...)) before placing "
                                        "it in an SNode.")
        self._node = node
        word = _word_field(node, self.max_num_bits, [m for m, _ in self._members])
        struct_node = node._child("bit_struct", [], [])
        for member, slot in self._members:
            _bind(member, QuantBinding(member, word, self.max_num_bits, slot), struct_node)


def quant_array(node, axes, dimensions, max_num_bits):
    """node.quant_array(axes, dims, max_num_bits): a node whose cells are elements packed into one word of the
    parent's cells; it takes one field of a quantized int or fixed-point type."""
    max_num_bits = _check_max_bits(max_num_bits)
    child = node._child("quant_array", axes, dimensions)
    child._quant_bits = max_num_bits
    return child


def place_in_quant_array(node, fields):
    """quant_array_node.place(x) (snode.py)."""
    members = [m for item in fields for m in _members_of(item, "quant_array().place()")]
    if len(members) != 1 or any(n._kind == "place" for n in node._children):
        raise QuadrantsRuntimeError("A quant_array holds one field: place a single field of a quantized type in it.")
    member = members[0]
    qtype = member._quant_type
    if isinstance(qtype, QuantFloat):
        raise NotImplementedError(f"quant_array(): quantized floats are not supported in a quant_array here (only "
                                  f"quantized ints and fixed-point types), but {member._describe()} is {qtype!r}.")
    count = int(np.prod(node._extents))
    if count * qtype.bits > node._quant_bits:
        raise QuadrantsRuntimeError(f"quant_array(max_num_bits={node._quant_bits}): {count} elements of {qtype.bits} "
                                    f"bits need {count * qtype.bits} bits, more than the word holds.")
    word = _word_field(node._parent, node._quant_bits, [member])
    _bind(member, QuantBinding(member, word, node._quant_bits, Slot(qtype, 0), array_node=node), node)
    return node


def _word_field(node, bits, members):
    names = [m.name for m in members if m.name]
    word = ScalarField(WORD_DTYPES[bits], None, name=f"bits of {', '.join(names)}" if names else "packed bits")
    word._quant_words = True  # not a field of the program's own (qd.append skips it: snode.py)
    node._place_field(word, None)
    return word


def _bind(member, binding, parent_node):
    if member._quant is not None or member._place_node is not None:  # in two packs, each placed
        raise QuadrantsRuntimeError(f"{member._describe()} is placed already; a field can be placed once.")
    member._quant = binding
    place = SNode("place", parent_node)
    place._field = member
    parent_node._children.append(place)
    member._place(place, None)


class QuantBinding:
    """A quantized field's bits: in `word` (a field of u8..u64) at `slot`; for a field of a quant_array node,
    element I is at position I % dims of word I // dims (row-major over the node's axes)."""

    def __init__(self, field, word, word_bits, slot, array_node=None):
        self.field, self.word, self.word_bits, self.slot, self.array_node = field, word, word_bits, slot, array_node

    def describe(self):
        """What kernels bake in (the translation cache's description of the field)."""
        node = self.array_node
        return ("quant", self.word_bits, self.slot.describe(), node and (node._axes, node._extents))

    def release(self):
        """The field's storage is the word field's; nothing of its own to free."""

    def _check(self):
        """The word field's storage is there (its tree finalized and not destroyed), or an error naming the field."""
        message = getattr(self.word._array, "message", None)  # a NoStorage's
        if message is not None:
            raise QuadrantsRuntimeError(f"{self.field._describe()} has no storage: {message}")

    # ---- where an element's bits are ----------------------------------------------------------------------------
    def word_index_map(self, index):
        """(the word's index, the element's position in it) of element `index` (a list of ints or int arrays)."""
        node = self.array_node
        if node is None:
            return list(index), 0
        member_dims, word_dims = self.field._place_node.dims, node._parent.dims
        local = {}
        word_index = []
        for value, axis in zip(index, member_dims):
            extent = node._extents[node._axes.index(axis)] if axis in node._axes else 1
            local[axis] = value % extent
            if axis in word_dims:
                word_index.append(value // extent)
        position = 0
        for axis, extent in zip(node._axes, node._extents):
            position = position * extent + local[axis]
        return word_index, position

    def shift_of(self, position):
        return self.slot.shift + position * self.slot.bits

    # ---- one element ------------------------------------------------------------------------------------------
    def get(self, index):
        self._check()
        words, position = self.word_index_map(index)
        word = np.uint64(int(self.word[tuple(words)]) & ((1 << self.word_bits) - 1))
        return self.decode(np.array([word]), position)[0].item()

    def set(self, index, value):
        self._check()
        words, position = self.word_index_map(index)
        word = np.array([int(self.word[tuple(words)]) & ((1 << self.word_bits) - 1)], dtype=np.uint64)
        new = self.encode_into(word, np.array([value]), position)
        self.word[tuple(words)] = int(new[0])

    # ---- the codec over words ---------------------------------------------------------------------------------
    def _bits(self, words, shift, bits):
        return (words >> np.asarray(shift, dtype=np.uint64)) & quant_codec.mask(bits)

    def decode(self, words, position):
        """The values of this field in `words` (uint64) at `position` (an int or an array of them)."""
        slot = self.slot
        digits = self._bits(words, self.shift_of(position), slot.bits)
        if not isinstance(slot.qtype, QuantFloat):
            return quant_codec.decode(slot.qtype, digits)
        exponent = self._bits(words, slot.exponent_shift, slot.qtype.exponent.bits)
        if slot.group is not None:
            return quant_codec.decode_shared(slot.qtype, digits, exponent)
        return quant_codec.decode(slot.qtype, digits, exponent)

    def encode_into(self, words, values, position):
        """`words` with this field's bits replaced by those of `values` (a shared exponent re-encodes its group)."""
        slot = self.slot
        if slot.group is not None:
            return self._encode_group(words, values)
        shift = np.asarray(self.shift_of(position), dtype=np.uint64)
        encoded = quant_codec.encode(slot.qtype, values)
        if isinstance(slot.qtype, QuantFloat):
            digits, exponent = encoded
            words = _put(words, exponent, np.uint64(slot.exponent_shift), slot.qtype.exponent.bits)
            return _put(words, digits, shift, slot.bits)
        return _put(words, encoded, shift, slot.bits)

    def _encode_group(self, words, values):
        group = self.slot.group
        current = [values if f is self.field else f._quant.decode(words, 0) for f in group.fields]
        exponent, digits = quant_codec.encode_shared([s.qtype for s in group.slots], current)
        words = _put(words, exponent, np.uint64(group.shift), group.bits)
        for slot, bits in zip(group.slots, digits):
            words = _put(words, bits, np.uint64(slot.shift), slot.bits)
        return words

    # ---- whole fields -----------------------------------------------------------------------------------------
    def _element_grid(self):
        shape = self.field.shape
        grid = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), dtype=np.int64)
        return self.word_index_map(list(grid))

    def _words(self):
        self._check()
        return self.word.to_numpy().astype(np.uint64)

    def to_numpy(self, dtype=None):
        words = self._words()
        if self.array_node is None:
            values = self.decode(words, 0)
        else:
            word_index, position = self._element_grid()
            values = self.decode(words[tuple(word_index)], position).reshape(self.field.shape)
        values = np.asarray(values).reshape(self.field.shape)
        return values if dtype is None else values.astype(dtype)

    def from_numpy(self, values):
        values = np.asarray(values)
        if values.shape != tuple(self.field.shape):
            raise ValueError(f"from_numpy(): expected an array of shape {tuple(self.field.shape)}, but got "
                             f"{values.shape}.")
        words = self._words()
        if self.array_node is None:
            new = self.encode_into(words, values, 0)
        else:  # every position of every word belongs to this field: build the words from zero
            word_index, position = self._element_grid()
            bits = quant_codec.encode(self.slot.qtype, values.reshape(-1)) << np.asarray(
                self.shift_of(position), dtype=np.uint64)
            new = np.zeros(words.shape, dtype=np.uint64)
            flat = np.ravel_multi_index(tuple(word_index), words.shape) if words.shape else np.zeros_like(bits,
                                                                                                        dtype=np.intp)
            np.bitwise_or.at(new.reshape(-1), flat, bits)
        self.word.from_numpy(new.astype(self.word.dtype.numpy))

    def fill(self, value):
        self.from_numpy(np.full(self.field.shape, value))


def _put(words, bits, shift, width):
    cleared = words & ~(quant_codec.mask(width) << shift)
    return cleared | ((bits.astype(np.uint64) & quant_codec.mask(width)) << shift)


__all__ = ["BitpackedFields", "QuantBinding"]


# snode.py sits below this module (fields import it), so its quant_array()/place() reach here through the registry.
registry.provide("quant_array", quant_array)
registry.provide("place_in_quant_array", place_in_quant_array)
