# tests/python/test_quant_types.py: quantized types (qd.types.quant) in qd.BitpackedFields and quant_array nodes.
"""Values round-trip through their bits in kernels and in Python scope alike; writes by many threads keep the
neighbouring members; signed ints sign-extend, fixed point rounds halves away from zero, floats flush to zero;
+= and qd.atomic_add are atomic on the word; bad layouts fail with messages that say what was wrong."""

import os
import subprocess
import sys

import numpy as np
import pytest

import quadrants as qd
from quadrants.data import quant_codec


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _packed(max_num_bits, *dtypes, shape=None, shared_exponent=False):
    fields = [qd.field(dtype=d) for d in dtypes]
    bitpack = qd.BitpackedFields(max_num_bits=max_num_bits)
    bitpack.place(*fields, shared_exponent=shared_exponent)
    (qd.root.dense(qd.i, shape) if shape else qd.root).place(bitpack)
    return fields


def test_extensions_are_reported_supported():
    assert qd.is_extension_supported(qd.cpu, qd.extension.quant)
    assert qd.is_extension_supported(qd.cpu, qd.extension.quant_basic)


def test_signed_and_unsigned_ints_round_trip_in_kernels_and_python_scope():
    x, y, z = _packed(32, qd.types.quant.int(13, True), qd.types.quant.int(14, False), qd.types.quant.int(5, True),
                      shape=6)
    xs = np.array([-4096, 4095, -1, 0, 123, -2000])
    ys = np.array([16383, 0, 1, 8191, 4567, 77])
    zs = np.array([-16, 15, -1, 0, 8, -9])

    @qd.kernel
    def store(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray()):
        for i in range(6):
            x[i] = a[i]
            y[i] = b[i]
            z[i] = c[i]

    @qd.kernel
    def load(out: qd.types.ndarray()):
        for i in range(6):
            out[i, 0] = x[i]
            out[i, 1] = y[i]
            out[i, 2] = z[i]

    store(xs, ys, zs)
    out = np.zeros((6, 3), dtype=np.int64)  # y computes in u32
    load(out)
    np.testing.assert_array_equal(out, np.stack([xs, ys, zs], axis=1))
    np.testing.assert_array_equal(x.to_numpy(), xs)  # Python scope reads what the kernel wrote
    for i in range(6):
        assert (x[i], y[i], z[i]) == (xs[i], ys[i], zs[i])
    x.from_numpy(-xs - 1)  # and a kernel reads what Python scope wrote, the neighbours untouched
    out[:] = 0
    load(out)
    np.testing.assert_array_equal(out, np.stack([-xs - 1, ys, zs], axis=1))


def test_ints_wrap_within_their_bits_and_convert_through_the_compute_type():
    a, b = _packed(32, qd.types.quant.int(5, True, qd.i16), qd.types.quant.int(7, False, qd.u16))
    a[None] = -16
    b[None] = -64  # as u16: 65472, whose low 7 bits are 64
    assert (a[None], b[None]) == (-16, 64)

    @qd.kernel
    def overflow():
        a[None] = 17  # 5 bits: 17 - 32
        b[None] = 200  # 7 bits: 200 - 128

    overflow()
    assert (a[None], b[None]) == (-15, 72)


def test_parallel_writes_keep_the_neighbouring_members():
    n = 1 << 16
    fields = _packed(32, *[qd.types.quant.int(8, False)] * 4, shape=n)

    @qd.kernel
    def write_all():
        # Iteration k writes member k // n of word k % n: the threads, each given a contiguous run of k, write
        # different members of the same words at the same time.
        for k in range(4 * n):
            i, member = k % n, k // n
            if member == 0:
                fields[0][i] = (i + 1) % 256
            elif member == 1:
                fields[1][i] = (i + 2) % 256
            elif member == 2:
                fields[2][i] = (i + 3) % 256
            else:
                fields[3][i] = (i + 4) % 256

    for _ in range(3):
        for f in fields:
            f.fill(0)
        write_all()
        for m, f in enumerate(fields):
            np.testing.assert_array_equal(f.to_numpy(), (np.arange(n) + m + 1) % 256)


def test_atomic_add_is_atomic_on_the_word_and_wraps_in_the_member():
    x, y, z = _packed(32, qd.types.quant.int(16, True), qd.types.quant.int(8, False), qd.types.quant.int(8, True))

    @qd.kernel
    def add(n: qd.i32) -> qd.i32:
        first = 0
        for i in range(n):
            x[None] += 1
            y[None] += 1  # 8 bits: wraps at 256
            old = qd.atomic_sub(z[None], 1)
            if old == 0:
                first += 1
        return first

    n = 200000
    assert add(n) == (n + 255) // 256  # qd.atomic_sub returns the old value: z passes 0 every 256th time
    assert x[None] == ((n + 2**15) % 2**16) - 2**15
    assert y[None] == n % 256
    assert z[None] == ((-n + 128) % 256) - 128


def test_atomics_on_members_of_eight_and_sixteen_bit_words_are_atomic():
    """Four threads add to members of u16 and u8 words at once. Each update is a compare-and-swap loop on the narrow
    word, so none is lost and each returns its own old value (an atomic and + or pair lost updates here)."""
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)
    a, b = _packed(16, qd.types.quant.int(14, False), qd.types.quant.int(2, True), shape=2)
    c, d = _packed(8, qd.types.quant.int(6, False), qd.types.quant.int(2, True), shape=2)
    q = qd.field(dtype=qd.types.quant.int(4, False))  # 4 elements to a u16 word of a quant_array
    qd.root.dense(qd.i, 2).quant_array(qd.i, 4, max_num_bits=16).place(q)
    n = 2 * 400003
    olds = qd.field(qd.u32, shape=(2, n))  # an unsigned member computes in u32

    @qd.kernel
    def hammer():
        for i in range(n):
            olds[0, i] = qd.atomic_add(a[i % 2], 1)
            qd.atomic_sub(b[i % 2], 1)
            olds[1, i] = qd.atomic_add(c[i % 2], 1)
            d[i % 2] += 1
            q[i % 8] += 1 + i % 8

    per_element = n // 2
    for _ in range(3):  # a race shows in most launches, not in every one
        for f in (a, b, c, d, q):
            f.fill(0)
        hammer()
        np.testing.assert_array_equal(q.to_numpy(), np.bincount(np.arange(n) % 8) * (1 + np.arange(8)) % 16)
        np.testing.assert_array_equal(a.to_numpy(), [per_element % 2**14] * 2)
        np.testing.assert_array_equal(b.to_numpy(), [(-per_element + 2) % 4 - 2] * 2)
        np.testing.assert_array_equal(c.to_numpy(), [per_element % 64] * 2)
        np.testing.assert_array_equal(d.to_numpy(), [(per_element + 2) % 4 - 2] * 2)
        seen = olds.to_numpy()
        for element in range(2):  # the k-th update of a member returns k (wrapped in its bits), in any order
            for row, bits in ((0, 14), (1, 6)):
                np.testing.assert_array_equal(np.bincount(seen[row, element::2], minlength=2**bits),
                                              np.bincount(np.arange(per_element) % 2**bits, minlength=2**bits))


def test_writes_of_one_member_of_a_sixteen_bit_word_never_mix_their_bits():
    """Threads store 0xAAA or 0x555 into one member, and read it back: a reader sees one of the two values,
    never a mix or the cleared member in between (as clearing, then setting the bits with two atomics showed)."""
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)
    x, y = _packed(16, qd.types.quant.int(12, False), qd.types.quant.int(4, False), shape=1)
    x[0], y[0] = 0xAAA, 9

    @qd.kernel
    def race(n: qd.i32) -> qd.i32:
        odd = 0
        for i in range(n):
            x[0] = 0xAAA if i % 2 == 0 else 0x555
            v = x[0]
            if v != 0xAAA and v != 0x555:
                odd += 1
        return odd

    assert [race(2000000) for _ in range(5)] == [0] * 5  # a race shows in most launches, not in every one
    assert x[0] in (0xAAA, 0x555) and y[0] == 9


def test_atomic_min_max_and_ops_on_members():
    x, y = _packed(32, qd.types.quant.int(12, True), qd.types.quant.int(12, False))
    x[None] = 0
    y[None] = 0b1010

    @qd.kernel
    def update():
        for i in range(100):
            qd.atomic_min(x[None], -i)
            y[None] |= 1 << (i % 12)

    update()
    assert (x[None], y[None]) == (-99, 4095)


def test_fixed_point_rounds_halves_away_from_zero():
    (x,) = _packed(32, qd.types.quant.fixed(bits=10, signed=True, scale=0.5))
    for value, stored in [(0.25, 0.5), (-0.25, -0.5), (0.24, 0.0), (-0.74, -0.5), (0.75, 1.0), (-1.25, -1.5)]:
        x[None] = value
        assert x[None] == stored, value

    @qd.kernel
    def store(v: qd.f32):
        x[None] = v

    for value, stored in [(0.25, 0.5), (-0.25, -0.5), (-0.74, -0.5), (-1.25, -1.5)]:
        store(value)
        assert x[None] == stored, value


def test_fixed_point_default_scale_and_atomic_add_of_digits():
    (x, y) = _packed(32, qd.types.quant.fixed(bits=16, max_value=2.0), qd.types.quant.fixed(bits=16, signed=False,
                                                                                          max_value=4.0))
    assert x.dtype == qd.f32
    x[None] = 1.5
    assert x[None] == pytest.approx(1.5, abs=2.0 / 2**15)
    y[None] = 3.0

    @qd.kernel
    def add():
        for _ in range(10):
            x[None] -= 0.25
            y[None] += 0.0625

    add()
    assert x[None] == pytest.approx(-1.0, abs=1e-3)
    assert y[None] == pytest.approx(3.625, abs=1e-3)


def test_floats_round_and_flush_to_zero():
    x, y = _packed(32, qd.types.quant.float(exp=5, frac=2, signed=True), qd.types.quant.float(exp=6, frac=13,
                                                                                               signed=False))

    @qd.kernel
    def store(a: qd.f32, b: qd.f32):
        x[None] = a
        y[None] = b

    # one fraction bit: 1.75 rounds up into the next exponent, 1.625 down
    for a, a_stored in [(1.5, 1.5), (-1.75, -2.0), (-1.625, -1.5), (1e-9, 0.0), (-6.0, -6.0)]:
        store(a, 1024.0)
        assert x[None] == a_stored, a
        assert y[None] == 1024.0
        x[None] = a  # Python scope stores the same bits
        assert x[None] == a_stored, a


def test_shared_exponent_keeps_the_larger_exponent():
    a, b = _packed(32, qd.types.quant.float(exp=6, frac=10, signed=False),
                   qd.types.quant.float(exp=6, frac=14, signed=True), shared_exponent=True)

    @qd.kernel
    def store(x: qd.f32, y: qd.f32):
        a[None] = x
        b[None] = y

    store(100.0, -3.0)
    assert a[None] == 100.0 and b[None] == -3.0
    store(1000.0, 1e-4)  # b is far below a's exponent: flushed to zero
    assert a[None] == 1000.0 and b[None] == 0.0
    b[None] = -123.0  # a Python-scope write re-encodes the group, keeping a
    assert a[None] == 1000.0 and b[None] == -123.0


def test_quant_array_elements_share_words():
    x = qd.field(dtype=qd.types.quant.int(4, True))
    qd.root.dense(qd.i, 3).quant_array(qd.ij, (2, 4), max_num_bits=32).place(x)
    assert x.shape == (6, 4)
    values = (np.arange(24).reshape(6, 4) % 16) - 8

    @qd.kernel
    def store(v: qd.types.ndarray()):
        for i, j in x:
            x[i, j] = v[i, j]

    @qd.kernel
    def total() -> qd.i32:
        s = 0
        for i, j in x:
            s += x[i, j]
        return s

    store(values)
    np.testing.assert_array_equal(x.to_numpy(), values)
    assert total() == values.sum()
    x.from_numpy(-values - 1)
    assert total() == (-values - 1).sum()
    x.fill(3)
    assert total() == 3 * 24


def test_sixteen_bit_words_and_sixty_four_bit_words():
    a, b = _packed(16, qd.types.quant.int(9, True), qd.types.quant.int(7, False), shape=8)
    c, d = _packed(64, qd.types.quant.int(40, True, qd.i64), qd.types.quant.fixed(bits=24, scale=0.01), shape=8)

    @qd.kernel
    def store(big: qd.types.ndarray()):
        for i in range(8):
            a[i] = -200 + i
            b[i] = 100 + i
            c[i] = big[i]
            d[i] = 0.01 * i - 0.5

    store(-(2**38) + np.arange(8, dtype=np.int64))
    np.testing.assert_array_equal(a.to_numpy(), -200 + np.arange(8))
    np.testing.assert_array_equal(b.to_numpy(), 100 + np.arange(8))
    np.testing.assert_array_equal(c.to_numpy(), -(2**38) + np.arange(8))
    np.testing.assert_allclose(d.to_numpy(), 0.01 * np.arange(8) - 0.5, atol=1e-6)


def test_quantized_vector_fields_place_each_component():
    qfxt = qd.types.quant.fixed(bits=16, max_value=2)
    v = qd.Vector.field(2, dtype=qfxt)
    bitpack = qd.BitpackedFields(max_num_bits=32)
    bitpack.place(v)
    qd.root.dense(qd.i, 3).place(bitpack)

    @qd.kernel
    def rotate():
        for i in v:
            v[i] = qd.Vector([-v[i][1], v[i][0]])

    v.from_numpy(np.array([[1.0, 0.5], [0.25, -1.0], [0.0, 0.0]], dtype=np.float32))
    rotate()
    np.testing.assert_allclose(v.to_numpy(), [[-0.5, 1.0], [1.0, 0.25], [0.0, 0.0]], atol=1e-4)

    @qd.kernel
    def by_runtime_index():
        for i in range(3):
            for c in range(2):  # a runtime entry index picks the component's word and bits
                v[i][c] = i * 0.25 + c * 0.5
            for c in range(2):
                v[i][c] += 0.125

    by_runtime_index()
    np.testing.assert_allclose(v.to_numpy(), [[0.125, 0.625], [0.375, 0.875], [0.625, 1.125]], atol=1e-4)


def test_sparse_bitpacked_fields_activate_on_store():
    x = qd.field(dtype=qd.types.quant.int(8, True))
    y = qd.field(dtype=qd.types.quant.int(8, True))
    bitpack = qd.BitpackedFields(max_num_bits=16)
    bitpack.place(x, y)
    qd.root.pointer(qd.i, 4).dense(qd.i, 4).place(bitpack)

    @qd.kernel
    def store():
        for i in range(16):
            if i // 4 == 2:
                x[i] = -i

    @qd.kernel
    def count() -> qd.i32:
        n = 0
        for i in x:
            n += 1
        return n

    store()
    assert count() == 4
    assert x[9] == -9 and y[9] == 0 and x[1] == 0
    np.testing.assert_array_equal(x.to_numpy(), np.where(np.arange(16) // 4 == 2, -np.arange(16), 0))


def test_codec_matches_kernels_for_random_floats():
    qflt = qd.types.quant.float(exp=7, frac=9, signed=True)
    n = 512
    (x,) = _packed(32, qflt, shape=n)
    values = np.random.default_rng(3).standard_normal(n).astype(np.float32) * 10.0 ** np.random.default_rng(4).integers(
        -6, 6, n)

    @qd.kernel
    def store(v: qd.types.ndarray()):
        for i in range(n):
            x[i] = v[i]

    store(values.astype(np.float32))
    in_kernels = x.to_numpy()
    digits, exponent = quant_codec.encode(qflt, values)
    np.testing.assert_array_equal(in_kernels, quant_codec.decode(qflt, digits, exponent))
    big = np.abs(values) > 1e-3
    np.testing.assert_allclose(in_kernels[big], values[big], rtol=2.0**-8)


def test_errors_name_what_was_wrong():
    qi13 = qd.types.quant.int(13)
    with pytest.raises(qd.QuadrantsRuntimeError, match="quantized type qi13, .*BitpackedFields"):
        qd.field(dtype=qi13, shape=4)
    with pytest.raises(qd.QuadrantsRuntimeError, match="quantized type qi13, .*BitpackedFields"):
        qd.root.dense(qd.i, 4).place(qd.field(dtype=qi13))
    bitpack = qd.BitpackedFields(max_num_bits=16)
    bitpack.place(qd.field(dtype=qi13))
    with pytest.raises(qd.QuadrantsRuntimeError, match="need 26 bits, more than the word holds"):
        bitpack.place(qd.field(dtype=qi13))
    with pytest.raises(qd.QuadrantsRuntimeError, match="takes fields of quantized types"):
        qd.BitpackedFields(max_num_bits=32).place(qd.field(dtype=qd.i32))
    with pytest.raises(ValueError, match="max_num_bits must be 8, 16, 32 or 64"):
        qd.BitpackedFields(max_num_bits=24)
    with pytest.raises(qd.QuadrantsCompilationError, match="At least 2 fields"):
        qd.BitpackedFields(max_num_bits=32).place(qd.field(dtype=qd.types.quant.float(5, 10)), shared_exponent=True)
    with pytest.raises(TypeError, match="compute must be f32"):
        qd.types.quant.float(exp=5, frac=10, compute=qd.f64)
    with pytest.raises(ValueError, match="bits must be an int in"):
        qd.types.quant.int(0)
    with pytest.raises(qd.QuadrantsRuntimeError, match="8 elements of 5 bits need 40 bits"):
        qd.root.quant_array(qd.i, 8, max_num_bits=32).place(qd.field(dtype=qd.types.quant.int(5)))
    twice = qd.field(dtype=qi13)
    first, second = qd.BitpackedFields(max_num_bits=32), qd.BitpackedFields(max_num_bits=32)
    first.place(twice)
    second.place(twice)
    qd.root.place(first)
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"a qd.field\(qi13\) is placed already"):
        qd.root.place(second)


def test_a_destroyed_tree_names_the_quantized_field():
    builder = qd.FieldsBuilder()
    x = qd.field(dtype=qd.types.quant.int(10, True), name="x")
    bitpack = qd.BitpackedFields(max_num_bits=32)
    bitpack.place(x)
    builder.dense(qd.i, 4).place(bitpack)
    with pytest.raises(qd.QuadrantsRuntimeError, match="not finalized yet"):
        x[0] = 1
    tree = builder.finalize()
    x[0] = -3
    assert x[0] == -3
    tree.destroy()
    with pytest.raises(qd.QuadrantsRuntimeError, match="field 'x' has no storage: .*destroyed"):
        x[0]


_LAYOUT_PROGRAM = """
import sys
import quadrants as qd
qd.init(arch=qd.cpu)
x = qd.field(dtype=qd.types.quant.int(8, True))
y = qd.field(dtype=qd.types.quant.int(8, True))
bitpack = qd.BitpackedFields(max_num_bits=32)
bitpack.place(*((x, y) if sys.argv[1] == "xy" else (y, x)))
qd.root.place(bitpack)

@qd.kernel
def store():
    x[None] = 5

store()
from quadrants.kernels import translation_cache
print(x[None], y[None], translation_cache.stats["hits"], translation_cache.stats["misses"])
"""


def test_the_translation_cache_keeps_each_layout_of_a_quantized_field_apart(tmp_path):
    """The same kernel source over another bit layout must not reuse the cached translation (the field's slot is part
    of its description), while the same layout in a new process loads it (each run prints hits, misses)."""
    script = tmp_path / "layout.py"
    script.write_text(_LAYOUT_PROGRAM)
    env = dict(os.environ, QD_CACHE_DIR=str(tmp_path / "cache"))
    runs = []
    for order in ("xy", "xy", "yx", "yx"):
        done = subprocess.run([sys.executable, str(script), order], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout.split()[-4:])
    assert runs == [["5", "0", "0", "1"], ["5", "0", "1", "0"], ["5", "0", "0", "1"], ["5", "0", "1", "0"]]


def test_python_scope_converts_floats_as_kernels_do():
    qu, qi = _packed(32, qd.types.quant.int(6, False), qd.types.quant.int(7, True), shape=4)
    values = np.array([-2.6, 300.7, -63.9, 13.37], dtype=np.float32)

    @qd.kernel
    def store(v: qd.types.ndarray()):
        for i in range(4):
            qu[i] = v[i]
            qi[i] = v[i]

    store(values)
    in_kernels = (qu.to_numpy(), qi.to_numpy())
    np.testing.assert_array_equal(in_kernels[0], [0, 300 % 64, 0, 13])  # negative floats saturate to 0 in u32
    np.testing.assert_array_equal(in_kernels[1], [-2, 300 - 256, -63, 13])
    for i, v in enumerate(values):
        qu[i] = float(v)
        qi[i] = float(v)
    np.testing.assert_array_equal(qu.to_numpy(), in_kernels[0])
    np.testing.assert_array_equal(qi.to_numpy(), in_kernels[1])


_CUDA_SCRIPT = """
import numpy as np
import quadrants as qd
qd.init(arch=qd.cuda, enable_fallback=False)
x = qd.field(dtype=qd.types.quant.int(13, True))
y = qd.field(dtype=qd.types.quant.fixed(bits=19, signed=False, scale=0.1))
b = qd.BitpackedFields(max_num_bits=32); b.place(x, y); qd.root.dense(qd.i, 64).place(b)
a = qd.field(dtype=qd.types.quant.int(9, True)); c = qd.field(dtype=qd.types.quant.int(7, False))
b16 = qd.BitpackedFields(max_num_bits=16); b16.place(a, c); qd.root.dense(qd.i, 64).place(b16)
f = qd.field(dtype=qd.types.quant.float(exp=6, frac=10, signed=False))
g = qd.field(dtype=qd.types.quant.float(exp=6, frac=14, signed=True))
b64 = qd.BitpackedFields(max_num_bits=64); b64.place(f, g, shared_exponent=True); qd.root.dense(qd.i, 64).place(b64)
q = qd.field(dtype=qd.types.quant.int(4, False)); qd.root.dense(qd.i, 8).quant_array(qd.i, 8, max_num_bits=32).place(q)
u = qd.field(dtype=qd.types.quant.int(5, False)); v = qd.field(dtype=qd.types.quant.int(3, True))
b8 = qd.BitpackedFields(max_num_bits=8); b8.place(u, v); qd.root.dense(qd.i, 3).place(b8)

@qd.kernel
def run():
    for i in range(64):
        x[i] = -i
        y[i] = i * 0.5
        a[i] = -200 + i
        c[i] = i
        f[i] = i * 2.0
        g[i] = -i * 1.0
        q[i] = i % 16
    for i in range(6400):
        x[i % 64] += 1
        y[i % 64] += 0.1
        qd.atomic_add(q[i % 64], 1)
        qd.atomic_add(a[i % 64], 1)
        c[i % 64] -= 1
        qd.atomic_add(u[i % 3], 1)
        v[i % 3] -= 1

run()
n = np.arange(64)
assert (x.to_numpy() == -n + 100).all()
np.testing.assert_allclose(y.to_numpy(), n * 0.5 + 10, atol=1e-3)
assert (a.to_numpy() == -100 + n).all() and (c.to_numpy() == (n - 100) % 128).all()
assert (u.to_numpy() == [2134 % 32, 2133 % 32, 2133 % 32]).all()
assert (v.to_numpy() == [(-2134 + 4) % 8 - 4, (-2133 + 4) % 8 - 4, (-2133 + 4) % 8 - 4]).all()
assert (f.to_numpy() == n * 2.0).all() and (g.to_numpy() == -n).all()
assert (q.to_numpy() == (n + 100) % 16).all()
print("ok")
"""


def test_quantized_fields_on_the_cuda_driver_emulation(tmp_path):
    """Compare-and-swap loops on 32-, 16- and 8-bit words, a 64-bit shared exponent and a quant_array on CUDA."""
    from emulated_cuda import run_on_cuda_emulation

    assert run_on_cuda_emulation(_CUDA_SCRIPT, tmp_path).strip().endswith("ok")


def test_deactivation_zeroes_the_words_and_append_writes_the_field():
    x, y = qd.field(dtype=qd.types.quant.int(8, True)), qd.field(dtype=qd.types.quant.int(8, True))
    bitpack = qd.BitpackedFields(max_num_bits=16)
    bitpack.place(x, y)
    cells = qd.root.pointer(qd.i, 4)
    cells.dense(qd.i, 4).place(bitpack)
    z = qd.field(dtype=qd.types.quant.int(8, True))
    list_pack = qd.BitpackedFields(max_num_bits=16)
    list_pack.place(z)
    lists = qd.root.dense(qd.i, 2).dynamic(qd.j, 8)
    lists.place(list_pack)

    @qd.kernel
    def fill():
        for i in range(16):
            x[i] = i
            y[i] = -i

    @qd.kernel
    def kill():
        qd.deactivate(cells, [1])

    @qd.kernel
    def push():
        qd.loop_config(serialize=True)
        for k in range(10):
            qd.append(lists, [k % 2], -k)

    fill()
    kill()
    kept = np.where(np.arange(16) // 4 == 1, 0, np.arange(16))
    np.testing.assert_array_equal(x.to_numpy(), kept)
    np.testing.assert_array_equal(y.to_numpy(), -kept)
    push()
    np.testing.assert_array_equal(z.to_numpy(), [[0, -2, -4, -6, -8, 0, 0, 0], [-1, -3, -5, -7, -9, 0, 0, 0]])
