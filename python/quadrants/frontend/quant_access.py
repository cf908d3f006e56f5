# python/quadrants/frontend/quant_access.py: fields of quantized types (qd.types.quant) in kernels.
#
# A quantized field has no array: its bits are in a word field (data/bitpacked.py), which the kernel takes as an
# ordinary global. Here every access becomes IR on that word, with the rules of data/quant_codec.py:
# - a read loads the word and unpacks the field's bits (shift, mask, sign extension; times the scale for fixed point;
#   f32 rebuilt from exponent and digits for a float). It is one pure expression, so it may sit in a lazy select arm;
# - a write replaces only the field's bits, with a compare-and-swap loop on the word (of any width, 8 to 64 bits):
#   members that other threads write at the same time are kept, and two writes of the same member leave one value
#   or the other, never a mix of their bits. A float sharing an exponent re-encodes its whole group in the same loop;
# - `x[i] += v` and qd.atomic_* are compare-and-swap loops too, so they are atomic on every word width.
#   As upstream, an int adds in its own bits (it wraps within them) and fixed point adds round(v / scale) to its
#   stored integer; other updates decode, combine and encode. They return the old value.
# No expression here shifts bits out of its type, so debug mode's overflow checks stay quiet.
from quadrants.frontend.ir_builder import Expr, Stmt
from quadrants.frontend.sparse_access import FieldRef
from quadrants.types.quant import QuantFixed, QuantFloat, QuantInt


class QuantRef(FieldRef):
    """A quantized field used by a kernel: `field` is the field itself (its shape, SNode and activity make its
    loops), `word` the FieldRef of its word field, `binding` where its bits are."""

    __slots__ = ("word", "binding")


def quant_ref(tr, field, py_name, label):
    """The QuantRef of a quantized field used as a global: one per field and translation, so that real functions
    taking it as a template argument are keyed by it (real_functions._static_key)."""
    refs = tr.__dict__.setdefault("_qd_quant_refs", {})
    ref = refs.get(id(field))
    if ref is None:
        ref = refs[id(field)] = _new_quant_ref(tr, field, py_name, label)
    return ref


def _new_quant_ref(tr, field, py_name, label):
    binding = field._quant
    word = tr.global_array(binding.word, f"{py_name or '_q'}_bits")
    # A name of its own that no IR param has: every access goes through the word, and a use that missed this
    # module fails the IR's name check instead of reading the word as the field.
    name = tr.names.fresh(f"{py_name or '_q'}_quant")
    ref = QuantRef(name, field.dtype.name, len(field.shape), (), static_shape=tuple(field.shape),
                   label=label or py_name or name)
    ref.field, ref.word, ref.binding = field, word, binding
    return ref


# ---- where an element's bits are ------------------------------------------------------------------------------------
def _word_and_position(tr, ref, index):
    """(the word's index parts, the element's position in the word: 0, or an IR value in a quant_array)."""
    parts = tr.index_parts(ref, index)
    node = ref.binding.array_node
    if node is None:
        return tuple(parts), 0
    word_dims, local = node._parent.dims, {}
    words = []
    for part, axis in zip(parts, ref.field._place_node.dims):
        extent = node._extents[node._axes.index(axis)] if axis in node._axes else 1
        if extent != 1:
            local[axis] = tr.ops.bin("mod", part, extent)
            part = tr.ops.bin("floordiv", part, extent)
        else:
            local[axis] = 0
        if axis in word_dims:
            words.append(part)
    position = 0
    for axis, extent in zip(node._axes, node._extents):
        position = tr.ops.bin("add", tr.ops.bin("mul", position, extent), local[axis])
    return tuple(words), position


class _Codec:
    """IR texts of one field's bits in a word of type `u` (`word` is the word's IR text)."""

    def __init__(self, tr, ref, position):
        binding = ref.binding
        self.slot, self.bits = binding.slot, binding.word_bits
        self.u, self.i = f"u{self.bits}", f"i{self.bits}"
        self.compute = ref.field.dtype.name
        if isinstance(position, int):
            self.shift = f"(const {self.u} {binding.shift_of(position)})"
        else:  # a quant_array element: its bits follow its position
            step = f"(bin mul (cast {self.u} {tr.ops.text(position)}) (const {self.u} {self.slot.bits}))"
            self.shift = f"(bin add {step} (const {self.u} {self.slot.shift}))"

    def const(self, value):
        return f"(const {self.u} {value})"

    def field_bits(self, word, shift, bits):
        """The `bits` bits of `word` from `shift` up, as a u-word."""
        return f"(bin bit_and (bin lshr {word} {shift}) {self.const((1 << bits) - 1)})"

    def signed(self, raw, bits):
        """raw bits sign-extended, as an i-word: (raw ^ top) - top."""
        value = f"(bit_cast {self.i} {raw})"
        if bits == self.bits:
            return value
        top = f"(const {self.i} {1 << (bits - 1)})"
        return f"(bin sub (bin bit_xor {value} {top}) {top})"

    # ---- reads ----
    def decode(self, word, slot=None):
        """The value of this field (or of `slot`, another member of a shared exponent) in `word`."""
        shift = self.shift if slot is None else self.const(slot.shift)
        slot = slot or self.slot
        qtype = slot.qtype
        if isinstance(qtype, QuantFloat):
            return self._decode_float(word, slot, shift)
        raw = self.field_bits(word, shift, qtype.bits)
        digits = self.signed(raw, qtype.bits) if qtype.signed else raw
        if isinstance(qtype, QuantInt):
            return f"(cast {self.compute} {digits})"
        return f"(bin mul (cast {self.compute} {digits}) (const {self.compute} {qtype.scale!r}))"

    def _decode_float(self, word, slot, shift):
        qtype = slot.qtype
        digits = f"(cast u32 {self.field_bits(word, shift, qtype.digits.bits)})"
        exponent = f"(cast i64 {self.field_bits(word, self.const(slot.exponent_shift), qtype.exponent.bits)})"
        offset = f"(const i64 {qtype.exponent_offset})"
        if qtype.exponent.bits < 8:
            offset = f"(select (bin ne {exponent} (const i64 0)) {offset} (const i64 0))"
        if slot.group is not None:
            return _decode_shared(qtype, digits, exponent, offset)
        shifted = f"(bin shl {digits} (const u32 {23 - qtype.digit_bits}))"
        biased = f"(cast u32 (bin bit_and (bin add {exponent} {offset}) (const i64 255)))"
        bits = f"(bin bit_or (bin shl {biased} (const u32 23)) (bin bit_and {shifted} (const u32 {0x7FFFFF})))"
        if qtype.signed:
            bits = f"(bin bit_or {bits} (bin shl (bin bit_and {shifted} (const u32 {1 << 23})) (const u32 8)))"
        return f"(bit_cast f32 {bits})"

    # ---- writes ----
    def mask(self):
        """The u-word with ones where this field's bits are (a float's exponent included, a group's not)."""
        slot = self.slot
        digits = f"(bin shl {self.const((1 << slot.bits) - 1)} {self.shift})"
        if isinstance(slot.qtype, QuantFloat) and slot.group is None:
            exponent = (1 << slot.qtype.exponent.bits) - 1 << slot.exponent_shift
            return f"(bin bit_or {digits} {self.const(exponent)})"
        return digits

    def encode(self, tr, value):
        """The u-word holding `value` (a local's IR text) in this field's bits and zeros elsewhere."""
        qtype = self.slot.qtype
        if isinstance(qtype, QuantInt):
            ones = self.const((1 << qtype.bits) - 1)
            raw = f"(bin bit_and (cast {self.u} (cast {qtype.compute.name} {value})) {ones})"
            return f"(bin shl {raw} {self.shift})"
        if isinstance(qtype, QuantFixed):
            digits = _declare(tr, "_q_digits", fixed_digits(qtype, value))
            raw = f"(bin bit_and (cast {self.u} {digits}) {self.const((1 << qtype.bits) - 1)})"
            return f"(bin shl {raw} {self.shift})"
        digits, exponent = _encode_float(tr, qtype, value)
        return (f"(bin bit_or (bin shl (cast {self.u} {digits}) {self.shift}) "
                f"(bin shl (cast {self.u} {exponent}) {self.const(self.slot.exponent_shift)}))")


def fixed_digits(qtype, value):
    """The i64 round(value / scale) of a fixed-point type, halves away from zero (upstream's rounding)."""
    c = qtype.compute.name
    scaled = f"(bin mul (cast {c} {value}) (const {c} {1.0 / qtype.scale!r}))"
    half = f"(const {c} 0.5)"
    rounded = f"(select (bin lt {scaled} (const {c} 0)) (bin sub {scaled} {half}) (bin add {scaled} {half}))"
    return f"(cast i64 {rounded})"


def _f32_bits(tr, value):
    return _declare(tr, "_q_f32", f"(cast i64 (bit_cast u32 (cast f32 {value})))")


def _encode_float(tr, qtype, value):
    """(digits, exponent) i64 locals of a float that keeps its own exponent (quant_codec._encode_float)."""
    db = qtype.digit_bits
    bits = _f32_bits(tr, value)
    if db < 23:
        bits = _declare(tr, "_q_round", f"(bin bit_and (bin add {bits} (const i64 {1 << (22 - db)})) "
                                         f"(const i64 {0xFFFFFFFF}))")
    exponent = f"(bin bit_and (bin shr {bits} (const i64 23)) (const i64 255))"
    digits = f"(bin bit_and (bin shr {bits} (const i64 {23 - db})) (const i64 {(1 << db) - 1}))"
    if qtype.signed:
        digits = f"(bin bit_or {digits} (bin shl (bin shr {bits} (const i64 31)) (const i64 {db})))"
    exponent = _declare(tr, "_q_exp", exponent)
    offset = f"(select (bin ne {exponent} (const i64 0)) (const i64 {qtype.exponent_offset}) (const i64 0))"
    exponent = _declare(tr, "_q_exp", f"(bin max (bin sub {exponent} {offset}) (const i64 0))")
    digits = f"(select (bin ne {exponent} (const i64 0)) {digits} (const i64 0))"  # flush to zero
    return (f"(bin bit_and {digits} (const i64 {(1 << qtype.digits.bits) - 1}))",
            f"(bin bit_and {exponent} (const i64 {(1 << qtype.exponent.bits) - 1}))")


def _decode_shared(qtype, digits, exponent, offset):
    """f32 of one member of a shared-exponent group (quant_codec.decode_shared), a pure expression."""
    db = qtype.digit_bits
    sign = "(const u32 0)"
    if qtype.signed:
        top = f"(bin bit_and {digits} (const u32 {1 << db}))"
        sign = f"(bin shl {top} (const u32 {31 - db}))"
        digits = f"(bin shl (bin bit_xor {digits} {top}) (const u32 1))"
    extra = f"(bin sub (const i64 {31 - db}) (cast i64 (un clz {digits})))"
    offset = f"(bin add (bin add {offset} {extra}) (const i64 {0 if qtype.signed else 1}))"
    shifted = f"(bin shl {digits} (cast u32 (bin sub (const i64 {23 - db}) {extra})))"
    biased = f"(cast u32 (bin bit_and (bin add {exponent} {offset}) (const i64 255)))"
    bits = f"(bin bit_or (bin shl {biased} (const u32 23)) (bin bit_and {shifted} (const u32 {0x7FFFFF})))"
    zero = f"(bin or (bin eq {exponent} (const i64 0)) (bin eq {digits} (const u32 0)))"
    return f"(bit_cast f32 (bin bit_or (select {zero} (const u32 0) {bits}) {sign}))"


def _declare(tr, base, text):
    name = tr.names.fresh(base)
    tr.builder.emit(f"decl {name} {text}")
    return f"(var {name})"


# ---- reads ---------------------------------------------------------------------------------------------------------
def quant_element(tr, ref, index):
    """`x[I]` of a quantized field: the value, unpacked from its word."""
    words, position = _word_and_position(tr, ref, index)
    word = tr.array_element(ref.word, words)
    return Expr(_Codec(tr, ref, position).decode(tr.ops.text(word)))


# ---- writes --------------------------------------------------------------------------------------------------------
class QuantTarget:
    """`x[I]` of a quantized field as an assignment target: stores and atomics go through its word."""

    def __init__(self, tr, ref, index):
        words, position = _word_and_position(tr, ref, index)
        if not isinstance(position, int):
            position = Expr(_declare(tr, "_q_pos", tr.ops.text(position)))
        self.ref = ref
        self.word = tr.array_target(ref.word, words)  # activates sparse cells, as a store to any field does
        self.codec = _Codec(tr, ref, position)
        self.where = self.word.where
        self.array = ref.word

    def load(self):
        return Expr(self.codec.decode(self.word.load().text))

    def store_head(self, text):
        raise AssertionError("QuantTarget.store_head(): quantized stores are emitted by emit_store")

    def atomic_head(self, op, text):
        raise AssertionError("QuantTarget.atomic_head(): quantized atomics are emitted by emit_atomic")

    def emit_store(self, tr, text):
        value = _declare(tr, "_q_value", text)
        self._update(tr, lambda old: self._replaced(tr, old, value))

    def emit_atomic(self, tr, op, text):
        """The atomic update `op` with operand `text`; returns the old value (a local)."""
        codec, qtype = self.codec, self.codec.slot.qtype
        if op == "cas":
            raise tr.fail("qd.atomic_cas() on a field of a quantized type is not supported", kind="type",
                          hint="compare and swap a field of a full-width dtype, or store with a plain assignment.")
        value = _declare(tr, "_q_operand", text)
        old_value = tr.names.fresh("_q_old_value")
        tr.builder.emit(f"decl {old_value} {qtype.compute.name} (const {qtype.compute.name} 0)")

        def combine(old):
            current = _declare(tr, "_q_current", codec.decode(old))
            tr.builder.emit(f"assign {old_value} {current}")
            if op in ("add", "sub") and not isinstance(qtype, QuantFloat) and codec.slot.group is None:
                return self._raw_added(tr, old, value, op)
            return self._replaced(tr, old, _declare(tr, "_q_next", _combined(op, current, value)))

        self._update(tr, combine)
        return Expr(f"(var {old_value})")

    # ---- the new word ----
    def _replaced(self, tr, old, value):
        """`old` with this field's bits (a shared exponent's group: all of its bits) encoding `value`."""
        codec = self.codec
        if codec.slot.group is not None:
            return _group_replaced(tr, self.ref.binding, codec, old, value)
        return f"(bin bit_or (bin bit_and {old} (un bit_not {codec.mask()})) {codec.encode(tr, value)})"

    def _raw_added(self, tr, old, value, op):
        """`old` with this int/fixed field's stored integer plus (minus) the operand's, wrapping in its bits."""
        codec, qtype = self.codec, self.codec.slot.qtype
        if isinstance(qtype, QuantFixed):
            delta = f"(cast {codec.u} {fixed_digits(qtype, value)})"
        else:
            delta = f"(cast {codec.u} (cast {qtype.compute.name} {value}))"
        # In u64, with the operand reduced to the field's bits and a subtraction added as its complement, no step
        # leaves its type (a field of 64 bits aside), so debug mode reports no overflow.
        mask = f"(const u64 {(1 << qtype.bits) - 1})"
        delta = f"(bin bit_and (cast u64 {delta}) {mask})"
        if op == "sub":
            delta = f"(bin add (bin sub {mask} {delta}) (const u64 1))"
        raw = f"(cast u64 {codec.field_bits(old, codec.shift, qtype.bits)})"
        summed = f"(cast {codec.u} (bin bit_and (bin add {raw} {delta}) {mask}))"
        return f"(bin bit_or (bin bit_and {old} (un bit_not {codec.mask()})) (bin shl {summed} {codec.shift}))"

    def _update(self, tr, new_word):
        """Replaces the word by new_word(old word's IR text) atomically: a compare-and-swap loop that computes the
        new word again from each word it saw (the IR's cas takes words of 8 to 64 bits)."""
        codec, word = self.codec, self.word
        old = tr.names.fresh("_q_word")
        tr.builder.emit(f"decl {old} {codec.u} {word.load().text}")
        tr.builder.open()
        new = _declare(tr, "_q_new", f"(cast {codec.u} {new_word(f'(var {old})')})")
        seen = _declare(tr, "_q_seen", word.atomic_head("cas", f"(var {old}) {new}"))
        tr.builder.emit(f"if (bin eq {seen} (var {old}))", [[Stmt("break")], [Stmt(f"assign {old} {seen}")]])
        tr.builder.emit("while (const i32 1)", [tr.builder.close()])


_COMBINE = {"add": "add", "sub": "sub", "min": "min", "max": "max", "and": "bit_and", "or": "bit_or",
            "xor": "bit_xor", "mul": "mul"}


def _combined(op, current, value):
    if op == "xchg":
        return value
    return f"(bin {_COMBINE[op]} {current} {value})"


def _group_replaced(tr, binding, codec, old, value):
    """`old` with a shared-exponent group re-encoded: this field takes `value`, the others keep theirs."""
    group = binding.slot.group
    word_bits = []
    exponents = []
    for member, slot in zip(group.fields, group.slots):
        if member._quant is binding:
            member_value = value
        else:
            member_value = _declare(tr, "_q_member", codec.decode(old, slot))
        bits = _f32_bits(tr, member_value)
        word_bits.append((slot, bits))
        exponents.append(_declare(tr, "_q_exp", f"(bin bit_and (bin shr {bits} (const i64 23)) (const i64 255))"))
    largest = exponents[0]
    for exponent in exponents[1:]:
        largest = _declare(tr, "_q_largest", f"(bin max {largest} {exponent})")
    first = group.slots[0].qtype
    offset = f"(select (bin ne {largest} (const i64 0)) (const i64 {first.exponent_offset}) (const i64 0))"
    stored = f"(bin bit_and (bin max (bin sub {largest} {offset}) (const i64 0)) (const i64 {(1 << group.bits) - 1}))"
    new = f"(bin shl (cast {codec.u} {stored}) {codec.const(group.shift)})"
    mask = (1 << group.bits) - 1 << group.shift
    for (slot, bits), exponent in zip(word_bits, exponents):
        qtype, right = slot.qtype, 24 - slot.qtype.digit_bits
        full = f"(bin bit_or (bin bit_and {bits} (const i64 {0x7FFFFF})) (const i64 {1 << 23}))"
        shift = f"(bin min (bin sub {largest} {exponent}) (const i64 31))"
        digits = f"(bin shr {full} {shift})"
        digits = (f"(bin shr (bin min (bin add {digits} (const i64 {1 << (right - 1)})) (const i64 {(1 << 24) - 1})) "
                  f"(const i64 {right}))")
        if qtype.signed:
            digits = f"(bin bit_or {digits} (bin shl (bin shr {bits} (const i64 31)) (const i64 {qtype.digit_bits})))"
        digits = f"(bin bit_and {digits} (const i64 {(1 << slot.bits) - 1}))"
        new = f"(bin bit_or {new} (bin shl (cast {codec.u} {digits}) {codec.const(slot.shift)}))"
        mask |= (1 << slot.bits) - 1 << slot.shift
    return f"(bin bit_or (bin bit_and {old} {codec.const(~mask & ((1 << codec.bits) - 1))}) {new})"
