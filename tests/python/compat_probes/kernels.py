# tests/python/compat_probes/kernels.py: probes of the compatibility rows about kernels, functions and control flow.
import contextlib
import io

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from compat_probes.util import fd_output, same


@probe("`@qd.kernel`, scalar and `qd.types.ndarray` parameters, return values (scalars, vectors, tuples)")
def kernel_parameters_and_returns():
    @qd.kernel
    def scaled_sum(a: qd.f32, x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f32:
        s = 0.0
        for i in range(x.shape[0]):
            s += a * x[i]
        return s

    @qd.kernel
    def vector() -> qd.types.vector(3, qd.f32):
        return qd.Vector([1.0, 2.0, 3.0])

    @qd.kernel
    def pair(n: qd.i32) -> tuple[qd.i32, qd.f32]:
        return n * 2, n * 0.5

    assert scaled_sum(2.0, np.arange(4, dtype=np.float32)) == 12.0
    same(vector().to_numpy(), [1.0, 2.0, 3.0])
    assert pair(3) == (6, 1.5)


@probe("`qd.template()`, `qd.Template`, `qd.static`, `qd.static_print`")
def templates_and_static():
    @qd.kernel
    def unrolled(n: qd.template(), out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for _ in range(1):
            total = 0
            for k in qd.static(range(n)):
                total += k
            out[0] = total
            qd.static_print("static n =", n)

    @qd.kernel
    def pick(flag: qd.Template) -> qd.i32:
        if qd.static(flag):
            return 1
        return 2

    out = np.zeros(1, np.int32)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        unrolled(5, out)
    assert out[0] == 10 and "static n = 5" in printed.getvalue()
    assert (pick(True), pick(False)) == (1, 2)
    with pytest.raises(Exception, match="ndarray"):  # as upstream: an ndarray is no template argument
        unrolled(qd.ndarray(qd.i32, 2), out)


@probe("`@qd.func`")
def funcs():
    @qd.func
    def square(v):
        return v * v

    @qd.func
    def forever(v):
        return forever(v)

    @qd.kernel
    def k(x: qd.f32) -> qd.f32:
        return square(x) + 1.0

    @qd.kernel
    def recursive() -> qd.i32:
        return forever(1)

    assert k(3.0) == 10.0
    with pytest.raises(qd.QuadrantsCompilationError, match="calls itself more than 32 levels deep"):
        recursive()


@probe("`@qd.real_func`, `@qd.func(is_real_function=True)`")
def real_funcs():
    @qd.real_func
    def fib(n: qd.i32) -> qd.i32:
        result = n
        if n > 1:
            result = fib(n - 1) + fib(n - 2)
        return result

    @qd.func(is_real_function=True)
    def triple(v: qd.f32) -> qd.f32:
        return v * 3.0

    @qd.kernel
    def k(n: qd.i32) -> qd.f32:
        return fib(n) + triple(1.5)

    assert k(10) == 55 + 4.5

    @qd.real_func
    def draw() -> qd.f32:
        return qd.random()

    @qd.kernel
    def draws() -> qd.types.vector(2, qd.f32):
        return qd.Vector([draw(), draw()])

    first, second = draws()
    assert 0.0 <= first < 1.0 and 0.0 <= second < 1.0 and first != second  # the caller's stream advances


@probe("parallel outer `for`, `range`, `qd.ndrange`, `qd.grouped`, struct-for over fields")
def parallel_loops():
    f = qd.field(qd.i32, shape=(3, 4))

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i, j in qd.ndrange(3, (1, 4)):
            a[i, j] = i * 10 + j
        for i in range(3):
            a[i, 0] = -i
        for I in qd.grouped(f):
            f[I] = I[0] + I[1]
        for i, j in f:
            a[i, j] += f[i, j] * 100

    a = np.zeros((3, 4), np.int32)
    fill(a)
    i, j = np.indices((3, 4))
    expected = np.where(j == 0, -i, i * 10 + j) + (i + j) * 100
    assert (a == expected).all(), a

    @qd.kernel
    def stepped():
        for i in range(0, 4, 2):  # upstream's kernels take no step
            f[i, 0] = 1

    with pytest.raises(qd.QuadrantsSyntaxError, match="Range should have 1 or 2 arguments, found 3"):
        stepped()

    @qd.kernel
    def one_name():
        for I in f:  # one name over a 2-d field: upstream wants two, or qd.grouped(f)
            f[I, 0] = 1

    with pytest.raises(qd.QuadrantsCompilationError, match=r"Number of struct-for indices does not match loop "
                                                           r"variable dimensionality \(1 != 2\)"):
        one_name()


@probe("`while`, `if`, `break`/`continue` in serial loops, `qd.loop_config(serialize=True)`")
def serial_control_flow():
    @qd.kernel
    def collatz(start: qd.i32) -> qd.i32:
        n = start
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    @qd.kernel
    def prefix(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(serialize=True)
        for i in range(1, a.shape[0]):
            if a[i] < 0:
                continue
            a[i] += a[i - 1]
            if a[i] > 50:
                break

    @qd.kernel
    def prefix_under_if(a: qd.types.ndarray(dtype=qd.i32, ndim=1), flag: qd.i32):
        if flag > 0:  # the note: a loop directly under a non-static top-level if runs serially, break allowed
            for i in range(1, a.shape[0]):
                a[i] += a[i - 1]
                if a[i] >= 100000:
                    break

    assert collatz(27) == 111
    a = np.ones(20, np.int32)
    a[3], a[8] = -5, 60
    expected = a.copy()
    for i in range(1, 20):  # the same loop in Python: serial order, continue and break
        if expected[i] < 0:
            continue
        expected[i] += expected[i - 1]
        if expected[i] > 50:
            break
    prefix(a)
    assert (a == expected).all() and a[9] == 1, a
    b = np.ones(200000, np.int32)
    prefix_under_if(b, 1)
    assert (b[:100000] == np.arange(1, 100001)).all() and (b[100000:] == 1).all()


@probe("`assert` and `print` in kernels, bounds checks under `qd.init(debug=True)` or `check_out_of_bound=True`")
def asserts_print_and_bounds():
    @qd.kernel
    def checked(i: qd.i32, v: qd.f32, a: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f32:
        assert v > 0, f"v[{i}] = {v:.2f}"
        return a[i]

    @qd.kernel
    def show(v: qd.i32):
        print("v is", v)

    a = np.zeros(3, np.float32)
    assert "v is 7" in fd_output(lambda: show(7))
    assert checked(1, -1.0, a) == 0.0  # release: the assert is not checked
    qd.init(arch=qd.cpu, check_out_of_bound=True)
    assert checked(0, -1.0, a) == 0.0  # bounds only: the assert stays off, as upstream
    with pytest.raises(IndexError, match=r"index \(5,\) is out of bounds"):
        checked(5, 1.0, a)
    qd.init(arch=qd.cpu, debug=True)
    with pytest.raises(AssertionError, match=r"v\[2\] = -1.50"):
        checked(2, -1.5, a)
    with pytest.raises(IndexError, match=r"index \(5,\) is out of bounds"):
        checked(5, 1.0, a)


@probe('integer overflow reports under `qd.init(debug=True)` ("Addition/Subtraction/Multiplication/Shift left '
       'overflow detected in File ..., line N, in FUNC:" and the source line)')
def overflow_reports():
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def grow(a: qd.i32, b: qd.i32) -> qd.i32:
        return a + b

    result = []
    text = fd_output(lambda: result.append(grow(2**31 - 1, 1)))
    assert result == [-2**31]  # wraps, as release mode
    assert "Addition overflow detected in File" in text and "in grow:" in text and "return a + b" in text, text


@probe('`qd.types.ndarray(boundary="clamp")`')
def clamped_ndarray():
    @qd.kernel
    def read(a: qd.types.ndarray(dtype=qd.f32, ndim=1, boundary="clamp"), i: qd.i32) -> qd.f32:
        return a[i]

    a = np.array([1.0, 2.0, 3.0], np.float32)
    assert (read(a, -4), read(a, 1), read(a, 9)) == (1.0, 2.0, 3.0)


@probe("scalar types i8-i64, u1-u64, f16, f32, f64; `default_fp`/`default_ip`")
def scalar_types():
    for dtype, np_dtype, value in [(qd.i8, np.int8, -100), (qd.i16, np.int16, -30000), (qd.i32, np.int32, -2**31),
                                   (qd.i64, np.int64, -2**62), (qd.u8, np.uint8, 200), (qd.u16, np.uint16, 60000),
                                   (qd.u32, np.uint32, 2**32 - 1), (qd.u64, np.uint64, 2**64 - 1),
                                   (qd.f16, np.float16, 0.5), (qd.f32, np.float32, 1.25), (qd.f64, np.float64, 0.1)]:
        @qd.kernel
        def copy(src: qd.types.ndarray(dtype=dtype, ndim=1), dst: qd.types.ndarray(dtype=dtype, ndim=1)):
            for i in src:
                dst[i] = src[i]

        src, dst = np.array([value], np_dtype), np.zeros(1, np_dtype)
        copy(src, dst)
        assert dst[0] == src[0], (dtype, dst)

    @qd.kernel
    def truth(v: qd.i32) -> qd.u1:
        return v > 3

    assert (truth(5), truth(1)) == (1, 0)
    qd.init(arch=qd.cpu, default_fp=qd.f64, default_ip=qd.i64)

    @qd.kernel
    def defaults(a: float, b: int) -> float:
        return a / 3.0 + b

    assert defaults(1.0, 2**40) == 1.0 / 3.0 + 2**40  # exact only in f64 with a 64-bit int


@probe("`qd.Vector`, `qd.Matrix`, `qd.types.vector/matrix/struct`, `@qd.dataclass` arguments")
def vectors_matrices_structs():
    vec3 = qd.types.vector(3, qd.f32)
    mat2 = qd.types.matrix(2, 2, qd.f32)
    pair_t = qd.types.struct(a=qd.i32, b=vec3)

    @qd.dataclass
    class Body:
        mass: qd.f32
        pos: vec3

    @qd.kernel
    def k(body: Body, m: mat2, v: vec3) -> qd.f32:
        p = pair_t(a=2, b=v)
        w = qd.Matrix([[1.0, 2.0], [3.0, 4.0]]) @ qd.Vector([1.0, 1.0])
        return body.mass * body.pos.dot(p.b) + (m @ w).sum() * p.a

    body = Body(mass=2.0, pos=vec3(1.0, 0.0, 1.0))
    # 2 * (1 + 3) + sum([[1, 0], [0, 1]] @ [3, 7]) * 2 = 8 + 20
    assert k(body, mat2([[1.0, 0.0], [0.0, 1.0]]), vec3(1.0, 2.0, 3.0)) == 28.0

    grid = qd.field(qd.i32, shape=(3, 3))

    @qd.kernel
    def units(i: qd.i32):
        grid[qd.Vector([1, 1]) + qd.Vector.unit(2, 0)] = 1  # an integer vector, as upstream, so an index
        grid[qd.Vector.unit(2, i)] += 2  # i at run time: the vector (i == 0, i == 1)

    units(1)
    assert grid.to_numpy().tolist() == [[0, 2, 0], [0, 0, 0], [0, 1, 0]]


@probe("atomics (`qd.atomic_add`, `+=` on shared data, min/max/and/or/xor/mul, `atomic_exchange`, `atomic_cas`)")
def atomics():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1), old: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(1, 9):
            qd.atomic_add(out[0], i)
            out[1] += 1
            qd.atomic_min(out[2], i)
            qd.atomic_max(out[3], i)
            qd.atomic_and(out[4], ~(1 << i))
            qd.atomic_or(out[5], 1 << i)
            qd.atomic_xor(out[6], 1 << i)
            if i <= 3:
                qd.atomic_mul(out[7], i + 1)
        for _ in range(1):
            old[0] = qd.atomic_exchange(out[8], 5)
            old[1] = qd.atomic_cas(out[9], 3, 4)  # expected 3, stores 4: the old value comes back
            old[2] = qd.atomic_cas(out[9], 3, 9)  # now 4: nothing stored

    out = np.array([0, 0, 100, -100, -1, 0, 0, 1, 1, 3], np.int32)
    old = np.zeros(3, np.int32)
    k(out, old)
    bits = sum(1 << i for i in range(1, 9))
    assert out.tolist() == [36, 8, 1, 8, -1 & ~bits, bits, bits, 24, 5, 4], out
    assert old.tolist() == [1, 3, 4]


@probe("plain Python functions and lambdas called on kernel values")
def python_functions():
    import operator

    def cube(v):
        return v * v * v

    scale = lambda v: v * 2  # noqa: E731

    @qd.kernel
    def k(x: qd.f32) -> qd.f32:
        return operator.add(cube(x), scale(x))

    assert k(2.0) == 12.0

    @qd.kernel
    def builtins(a: qd.i32, x: qd.f32) -> qd.types.vector(6, qd.f32):
        return qd.Vector([pow(a, 3), pow(x, a), abs(a - 5), min(a, x), int(-x), float(a) / 2])

    same(builtins(3, 1.5), [27.0, 3.375, 2.0, 1.5, -1.0, 1.5])

    @qd.kernel
    def rounds(x: qd.f32) -> qd.f32:
        return round(x)

    with pytest.raises(qd.QuadrantsCompilationError, match="round"):
        rounds(0.5)


@probe("the walrus operator `:=` in kernels and funcs")
def walrus():
    @qd.func
    def halvings(a):
        n = 0
        while (a := a // 2) > 0:
            n += 1
        return n

    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        if (b := a * 2) > 3:
            b += 1
        return b * 100 + halvings(a)

    assert k(3) == 701 and k(1) == 200


@probe("Python lists, tuples and dicts of kernel values; assigning their entries (`verts[1] = verts[2]`)")
def local_lists():
    @qd.kernel
    def k(x: qd.f32) -> qd.types.vector(3, qd.f32):
        a = x
        verts = [qd.Vector([a, 0.0]), qd.Vector([0.0, a]), qd.Vector([a, a])]
        a = 0.0  # the list holds copies
        verts[1] = verts[2]
        verts[0] += verts[1]
        return qd.Vector([verts[0][0], verts[1][1], verts[2][0]])

    same(k(2.0), [4.0, 2.0, 2.0])


@probe("upstream's compile-time rules: kernel arguments immutable, `in`/`is` only in `qd.static` (`is` only "
       "`template_arg is None`), typed literals (`qd.u16(-1)`, `qd.f32(0)` rejected), loop variables are new names")
def compile_time_rules():
    @qd.kernel
    def assigns_argument(x: qd.i32) -> qd.i32:
        x = 3
        return x

    @qd.kernel
    def runtime_in(x: qd.i32) -> qd.i32:
        return 1 if x in [1, 2] else 0

    @qd.kernel
    def static_is(t: qd.template()) -> qd.i32:
        if qd.static(t is None):
            return 1
        return 2

    @qd.kernel
    def negative_unsigned() -> qd.u16:
        return qd.u16(-1)

    @qd.kernel
    def int_as_float() -> qd.f32:
        return qd.f32(0)

    @qd.kernel
    def reused_name() -> qd.i32:
        i = 10
        for _ in range(1):
            for i in range(3):  # a loop variable must be a new name, as upstream
                pass
        return i

    for kernel, message in [(assigns_argument, 'Kernel argument "x" is immutable'),
                            (runtime_in, '"In" is only supported inside `qd.static`')]:
        with pytest.raises(qd.QuadrantsCompilationError, match=message):
            kernel(1)
    for kernel, message in [(negative_unsigned, "Integer literal -1 exceeded the range of specified dtype: u16"),
                            (int_as_float, "Integer literals must be annotated with a integer type"),
                            (reused_name, "already declared in the outer scope and cannot be used as loop variable")]:
        with pytest.raises(qd.QuadrantsCompilationError, match=message):
            kernel()
    assert (static_is(None), static_is(3)) == (1, 2)

    @qd.func
    def first_of(a, b, c):
        return a

    values = [1, 2]

    @qd.kernel
    def star_in_the_middle() -> qd.i32:
        return first_of(*values, 3)

    @qd.kernel
    def star_then_keyword() -> qd.i32:
        return first_of(*values, c=3)

    @qd.kernel
    def star_last() -> qd.i32:
        return first_of(0, *values)

    for kernel in (star_in_the_middle, star_then_keyword):
        with pytest.raises(qd.QuadrantsSyntaxError, match="STARNOTLAST"):
            kernel()
    assert star_last() == 0


@probe("default values of kernel parameters (`s: qd.f32 = 1.0`)")
def kernel_parameter_defaults():
    @qd.kernel
    def scaled(x: qd.types.ndarray(dtype=qd.f32, ndim=1), s: qd.f32 = 3.0) -> qd.f32:
        total = 0.0
        for i in range(x.shape[0]):
            total += s * x[i]
        return total

    x = np.arange(4, dtype=np.float32)
    assert scaled(x) == 18.0  # the default s=3.0
    assert scaled(x, 0.5) == 3.0
    assert scaled(s=2.0, x=x) == 12.0


@probe("`@qd.func(requires_top_level=True)`")
def func_requires_top_level():
    @qd.func(requires_top_level=True)
    def fill(x: qd.template()):
        for i in range(4):
            x[i] = i

    @qd.kernel
    def top(x: qd.types.ndarray(qd.i32, ndim=1)):
        fill(x)

    @qd.kernel
    def nested(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        if n > 0:
            fill(x)

    x = qd.ndarray(qd.i32, shape=(4,))
    top(x)
    assert x.to_numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(qd.QuadrantsSyntaxError, match="requires_top_level"):
        nested(x, 1)
