# tests/python/test_simd_lanes.py: loops whose innermost index runs in vector lanes on the CPU (cpu_simd.cpp).
"""A parallel loop with a `while` in its body runs groups of iterations as vector lanes under masks.
Each kernel here runs twice, once as a parallel loop (lanes) and once with loop_config(serialize=True)
(one iteration at a time, never lanes), and the two must agree exactly. Extents are not multiples of
any lane count, so groups and the one-by-one rest both run."""

import os

import numpy as np
import pytest

import quadrants as qd


def both(body):
    """The lanes kernel and the serial kernel of one loop body (a qd.func of the loop indices)."""

    @qd.kernel
    def lanes(out: qd.types.ndarray(), a: qd.types.ndarray(), p: qd.i32):
        for i, j in qd.ndrange(out.shape[0], out.shape[1]):
            body(out, a, p, i, j)

    @qd.kernel
    def serial(out: qd.types.ndarray(), a: qd.types.ndarray(), p: qd.i32):
        qd.loop_config(serialize=True)
        for i, j in qd.ndrange(out.shape[0], out.shape[1]):
            body(out, a, p, i, j)

    return lanes, serial


def run_both(body, out_dtype, a, p=3, shape=(5, 37)):
    lanes, serial = both(body)
    got, expected = np.zeros(shape, out_dtype), np.zeros(shape, out_dtype)
    lanes(got, a, p)
    serial(expected, a, p)
    return got, expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_escape_time_matches_serial(dtype):
    @qd.func
    def body(out, a, p, i, j):
        cx = -2.0 + 2.5 * j / out.shape[1]
        cy = -1.25 + 2.5 * i / out.shape[0]
        x = 0.0
        y = 0.0
        n = 0
        while n < 200 and x * x + y * y <= 4.0:
            x, y = x * x - y * y + cx, 2.0 * x * y + cy
            n += 1
        out[i, j] = n + x * 0.0

    got, expected = run_both(body, dtype, np.zeros(1, dtype), shape=(31, 45))
    np.testing.assert_array_equal(got, expected)
    assert len(np.unique(got)) > 10  # lanes of one group left the loop at different times


def test_integer_steps_with_division_and_if_else_under_masks():
    @qd.func
    def body(out, a, p, i, j):
        n = qd.i64(i * 37 + j + 1)
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i, j] = steps

    got, expected = run_both(body, np.int64, np.zeros(1, np.int64), shape=(7, 41))
    np.testing.assert_array_equal(got, expected)
    assert got[0, 26] == 111  # the Collatz sequence of 27


def test_loads_under_a_mask_read_only_active_lanes():
    # Lane j reads a[j], a[j + step], ... while in range; a lane past the end must not read.
    a = np.arange(1, 38, dtype=np.float32)

    @qd.func
    def body(out, a, p, i, j):
        k = j
        s = 0.0
        while k < a.shape[0]:
            s += a[k]
            k += i + 1
        out[i, j] = s

    got, expected = run_both(body, np.float32, a)
    np.testing.assert_array_equal(got, expected)
    assert got[0, 0] == a.sum()


def test_gathers_selects_and_stores_under_masks():
    a = np.random.default_rng(1).permutation(37).astype(np.int32)

    @qd.func
    def body(out, a, p, i, j):
        k = j
        hops = 0
        while hops < p * i + 2:
            nxt = a[k] if k % 3 != 0 else k
            k = nxt
            hops += 1
            if k == j:
                out[i, k] = -hops
        if out[i, j] == 0:
            out[i, j] = k

    got, expected = run_both(body, np.int32, a)
    np.testing.assert_array_equal(got, expected)


def test_inner_serial_loop_and_uniform_conditions():
    @qd.func
    def body(out, a, p, i, j):
        total = qd.f64(0.0)
        for t in range(p + i):
            x = qd.f64(j + t)
            while x > 1.0:
                x = x / 3.0 if p > 2 else x / 2.0
                if p == 3:
                    total += qd.sqrt(x)
        out[i, j] = total

    for p in (1, 3):
        got, expected = run_both(body, np.float64, np.zeros(1), p=p)
        np.testing.assert_array_equal(got, expected)
        assert (got[4, 36] > 0) == (p == 3)


def test_casts_division_by_zero_and_wrapping_in_lanes():
    @qd.func
    def body(out, a, p, i, j):
        v = qd.i32(2147483600 + j)
        count = 0
        while count < 3:
            v = v + 40  # wraps past INT32_MAX for some lanes
            count += 1
        q = v // (j % 4)  # division by zero gives 0
        f = qd.f32(j) * 1e9
        out[i, j] = q + qd.cast(f, qd.i32) % 1000 + (v >> 3)

    got, expected = run_both(body, np.int32, np.zeros(1, np.int32))
    np.testing.assert_array_equal(got, expected)


def test_one_dimensional_loop_with_offset_and_strided_arrays():
    column = np.arange(2 * 1003, dtype=np.float32).reshape(1003, 2)[:, 1]
    assert not column.flags.c_contiguous
    src = qd.from_dlpack(column)  # a strided view (kernels refuse strided numpy views themselves, as upstream)

    @qd.kernel
    def lanes(out: qd.types.ndarray(), src: qd.types.ndarray()):
        for i in range(5, out.shape[0]):
            x = src[i]
            while x > 1.0:
                x = qd.sqrt(x) - 0.25
            out[i] = x

    @qd.kernel
    def serial(out: qd.types.ndarray(), src: qd.types.ndarray()):
        qd.loop_config(serialize=True)
        for i in range(5, out.shape[0]):
            x = src[i]
            while x > 1.0:
                x = qd.sqrt(x) - 0.25
            out[i] = x

    got, expected = np.zeros(1003, np.float32), np.zeros(1003, np.float32)
    lanes(got, src)
    serial(expected, src)
    np.testing.assert_array_equal(got, expected)
    assert np.all(got[:5] == 0) and np.all(got[5:] <= 1.0)


def test_vector_fields_in_lanes():
    pos = qd.Vector.field(2, qd.f32, shape=(3, 29))
    steps = qd.field(qd.i32, shape=(3, 29))

    @qd.func
    def walk(i, j):
        p = pos[i, j]
        n = 0
        while p.norm() > 0.5 and n < 100:
            p = p * 0.8
            n += 1
        pos[i, j] = p
        steps[i, j] = n

    @qd.kernel
    def lanes():
        for i, j in pos:
            walk(i, j)

    @qd.kernel
    def serial():
        qd.loop_config(serialize=True)
        for i, j in pos:
            walk(i, j)

    start = np.random.default_rng(2).normal(size=(3, 29, 2)).astype(np.float32) * 10
    pos.from_numpy(start)
    lanes()
    got_pos, got_steps = pos.to_numpy(), steps.to_numpy()
    pos.from_numpy(start)
    serial()
    np.testing.assert_array_equal(got_pos, pos.to_numpy())
    np.testing.assert_array_equal(got_steps, steps.to_numpy())
    assert got_steps.max() > got_steps.min()


def test_break_and_continue_in_lanes():
    a = np.arange(30, dtype=np.int32) * 3 + 1  # exactly 30: a lane past the end must not load

    @qd.func
    def body(out, a, p, i, j):
        s = 0
        k = 0
        while True:
            k += 1
            if k % 3 == 0:
                continue
            if k > j + i:
                break
            s += k
        t = 0
        for m in range(p * 10 + 5):
            if m >= a.shape[0]:
                break  # the same for every lane: all leave at once, and a[30] is never read
            if m == j:
                break
            if m % 2 == 1:
                continue
            t += a[m]
        out[i, j] = s * 10000 + t

    got, expected = run_both(body, np.int32, a, shape=(4, 45))
    np.testing.assert_array_equal(got, expected)
    assert got[0, 44] == (sum(k for k in range(1, 45) if k % 3) * 10000 + int(a[0:30:2].sum()))


# ---- random loop bodies: lanes against one iteration at a time ------------------------------------------
RANDOM_BODIES = int(os.environ.get("QD_SIMD_SEEDS", "12"))  # more for a longer search (150 passed once)

class _BodyWriter:
    """A random loop body over int locals s, t and a float local f: assignments, if/else, while and for
    loops with break and continue. Float values never steer control flow, so only rounding may differ."""

    def __init__(self, rng):
        self.rng = rng
        self.loops = 0

    def pick(self, options):
        return options[self.rng.integers(len(options))]

    def int_expr(self):
        a, b = self.pick(["s", "t", "i", "j", "p"]), self.pick(["s", "t", "j", "3", "7", "(-2)"])
        return self.pick([f"{a} + {b}", f"{a} - {b}", f"{a} * {b}", f"{a} // 3", f"{a} % 7", f"qd.max({a}, {b})",
                          f"qd.min({a}, {b})", f"({a} ^ {b})", f"({a} >> 1)", f"{a} if {b} > 2 else {b}"])

    def cond(self):
        return f"{self.int_expr()} {self.pick(['<', '>', '==', '!=', '<='])} {self.pick(['s', 't', '0', '5', 'j'])}"

    def block(self, pad, depth, in_loop):
        return "".join(self.stmt(pad, depth, in_loop) for _ in range(self.rng.integers(1, 4)))

    def stmt(self, pad, depth, in_loop):
        kinds = ["int", "int", "float"] + (["if", "while", "for"] if depth else []) + (["jump"] if in_loop else [])
        kind = self.pick(kinds)
        if kind == "int":
            return f"{pad}{self.pick(['s', 't'])} = ({self.int_expr()}) % 1000\n"
        if kind == "float":
            return f"{pad}f = f * 0.5 + qd.cast({self.int_expr()}, qd.f32) * 0.25\n"
        if kind == "jump":
            return f"{pad}if {self.cond()}:\n{pad}    {self.pick(['break', 'continue'])}\n"
        if kind == "if":
            text = f"{pad}if {self.cond()}:\n{self.block(pad + '    ', depth - 1, in_loop)}"
            if self.rng.integers(2):
                text += f"{pad}else:\n{self.block(pad + '    ', depth - 1, in_loop)}"
            return text
        k = f"k{self.loops}"
        self.loops += 1
        if kind == "for":
            return f"{pad}for {k} in range({self.pick(['p', '3', 'p + 2'])}):\n{self.block(pad + '    ', depth - 1, True)}"
        bound = self.pick(["4", "j % 6", "(i + j) % 5"])
        return (f"{pad}{k} = 0\n{pad}while {k} < {bound}:\n{pad}    {k} += 1\n"
                f"{self.block(pad + '    ', depth - 1, True)}")


@pytest.mark.parametrize("seed", range(RANDOM_BODIES))
def test_random_bodies_match_serial(tmp_path, seed):
    import importlib.util

    body = _BodyWriter(np.random.default_rng(seed)).block("        ", 3, False)
    header = "import quadrants as qd\n\n\n@qd.kernel\ndef {name}(si: qd.types.ndarray(), sf: qd.types.ndarray(), p: qd.i32):\n"
    loop = ("    for i, j in qd.ndrange(si.shape[0], si.shape[1]):\n        s = i * 3 + j\n        t = j - i\n"
            "        f = qd.f32(0.0)\n        w = 0\n        while w < 1:  # a while, so the lanes path is taken\n"
            "            w += 1\n" + body + "        si[i, j] = s * 1000 + t\n        sf[i, j] = f\n")
    source = (header.format(name="lanes") + loop + "\n\n" + header.format(name="serial") +
              "    qd.loop_config(serialize=True)\n" + loop)
    path = tmp_path / f"simd_body_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = np.zeros((3, 37), np.int32), np.zeros((3, 37), np.float32)
    expected = np.zeros((3, 37), np.int32), np.zeros((3, 37), np.float32)
    module.lanes(*got, 3)
    module.serial(*expected, 3)
    np.testing.assert_array_equal(got[0], expected[0], err_msg=source)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-5, atol=1e-5, err_msg=source)
