# tests/python/test_lang_ir.py: golden IR text of small kernels (docs/IR.md), checked without compiling them.
import inspect

import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def default_runtime():
    """Golden IR assumes the default dtypes, whatever an earlier test initialized with."""
    qd.init(arch=qd.cpu)


def array(dtype="f32", ndim=1, element_shape=(), contiguous=True, writable=True):
    return ("array", dtype, ndim, tuple(element_shape), contiguous, writable)


def scalar(dtype="i32"):
    return ("scalar", dtype)


def parse(text):
    """Nested lists from IR text (atoms stay strings), for comparisons that ignore layout."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    stack = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    return stack[0][0]


def strip_locs(node):
    if isinstance(node, list):
        if node and node[0] == "loc":
            return strip_locs(node[3])
        return [strip_locs(child) for child in node]
    return node


def render(node):
    return "(" + " ".join(render(c) for c in node) + ")" if isinstance(node, list) else node


def body(kernel, *spec, templates=()):
    """The kernel body's statements, one compact string each, without `loc` wrappers."""
    tree = strip_locs(parse(kernel.ir(spec, templates)))
    return [render(stmt) for stmt in tree[5][1:]]


def header(kernel, *spec, templates=()):
    tree = parse(kernel.ir(spec, templates))
    return {part[0]: render(part) for part in tree[2:5]}


def test_square_from_the_seed():
    @qd.kernel
    def square(inp: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
        for i in range(32):
            out[i] = inp[i] * inp[i]

    text = square.ir((array(), array()))
    assert text.startswith("(kernel square\n  (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0)")
    assert "(params (array inp f32 1 () 1 1) (array out f32 1 () 1 1))" in text
    assert "(returns void)" in text
    assert body(square, array(), array()) == [
        "(parallel_for (i) ((const int 32)) (config (block_dim 0) (serialize 0)) "
        "((store out ((var i)) () (bin mul (load inp ((var i)) ()) (load inp ((var i)) ())))))"
    ]


def test_loc_gives_the_file_line_and_column():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = 1

    first = inspect.getsourcelines(k.fn)[1]
    text = k.ir((array(),))
    assert f"(loc {first + 2} 8 (store x ((const int 0)) () (const int 1)))" in text


def test_specialization_sets_dtype_ndim_contiguity_and_writability():
    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.f64) -> qd.i64:
        return x.shape[1] + n

    params = header(k, array("i16", 2, (), False, False), scalar("f64"))
    assert params["params"] == "(params (array x i16 2 () 0 0) (scalar n f64))"
    assert params["returns"] == "(returns i64)"
    assert body(k, array("i16", 2, (), False, False), scalar("f64")) == ["(return (bin add (shape x 1) (arg n)))"]


def test_range_with_begin_adds_it_back():
    @qd.kernel
    def k(x: qd.types.ndarray(), a: qd.i32, b: qd.i32):
        for i in range(a, b):
            x[i] = i

    assert body(k, array(), scalar(), scalar()) == [
        "(parallel_for (_i) ((bin sub (bin max (arg b) (arg a)) (arg a))) (config (block_dim 0) (serialize 0)) "
        "((decl i (bin add (var _i) (arg a))) (store x ((var i)) () (var i))))"
    ]


def test_ndrange_struct_for_and_grouped_index():
    @qd.kernel
    def k(x: qd.types.ndarray(ndim=2)):
        for i, j in qd.ndrange((1, 3), 4):
            x[i, j] = 0
        for i, j in x:
            x[i, j] += 1
        for I in qd.grouped(x):
            x[I] = 2

    stmts = body(k, array("f32", 2))
    assert stmts[0] == (
        "(parallel_for (_i j) ((const int 2) (const int 4)) (config (block_dim 0) (serialize 0)) "
        "((decl i (bin add (var _i) (const int 1))) (store x ((var i) (var j)) () (const int 0))))"
    )
    assert stmts[1] == (
        "(parallel_for (i_1 j_1) ((shape x 0) (shape x 1)) (config (block_dim 0) (serialize 0)) "
        "((eval (atomic add x ((var i_1) (var j_1)) () (const int 1)))))"
    )
    assert stmts[2] == (
        "(parallel_for (_I0 _I1) ((shape x 0) (shape x 1)) (config (block_dim 0) (serialize 0)) "
        "((decl I (var _I0)) (decl I_1 (var _I1)) (store x ((var I) (var I_1)) () (const int 2))))"
    )


def test_nested_loops_are_serial_and_loop_config_applies_to_the_next_loop():
    @qd.kernel
    def k(x: qd.types.ndarray(ndim=2), n: qd.i32):
        qd.loop_config(serialize=True, block_dim=128)
        for i in range(n):
            for j in range(1, n):
                x[i, j] = 0
        for i in range(n):
            x[i, 0] = 1

    stmts = body(k, array("f32", 2), scalar())
    assert stmts[0] == (
        "(parallel_for (i) ((arg n)) (config (block_dim 128) (serialize 1)) "
        "((for j (const int 1) (arg n) ((store x ((var i) (var j)) () (const int 0))))))"
    )
    assert stmts[1].endswith("(config (block_dim 0) (serialize 0)) ((store x ((var i_1) (const int 0)) () (const int 1))))")


def test_a_func_called_at_the_kernels_top_level_has_parallel_top_level_loops_unless_it_returns_early():
    # As upstream: an inlined func's top-level loops are the kernel's, each a parallel task.
    @qd.func
    def phase(x: qd.template(), n: qd.i32):
        for i in range(n):
            x[i] += 1
        for i in range(n):
            for j in range(2):
                x[i] += j

    @qd.func
    def find(x: qd.template(), n: qd.i32) -> qd.i32:
        for i in range(n):
            if x[i] > 0:
                return i
        return -1

    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.i32) -> qd.i32:
        phase(x, n)
        if n > 0:
            phase(x, n)  # inside a runtime if: serial, as any loop there
        return find(x, n)

    stmts = body(k, array("f32", 1), scalar())
    loops = [k for k, stmt in enumerate(stmts) if stmt.startswith("(parallel_for")]
    assert len(loops) == 2, stmts  # phase's two loops; the second keeps its inner loop serial
    rest = "".join(stmts[loops[1] + 1:])
    assert "(parallel_for" not in rest, stmts  # neither the if's call nor find, which returns early
    assert rest.count("(for ") == 4, stmts  # in the if: phase's two loops and the inner one; find's loop


def test_a_loop_under_a_compile_time_if_is_parallel_only_when_the_if_is_static():
    # Upstream: a qd.static if keeps a top-level loop parallel; any other if over it, a constant condition
    # included, makes it serial (only the taken branch is compiled either way). We parallelized the loops of
    # `if True:` / `if CAPTURED_FLAG:` branches, which changes what order-dependent loops compute.
    FLAG = True

    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.i32):
        if qd.static(FLAG):
            for i in range(n):
                x[i] = 1
        if FLAG:
            for i in range(n):
                x[i] += 2
        if True:
            for i in range(n):
                x[i] += 3
        else:
            for i in range(n):
                x[i] = -1

    stmts = body(k, array("f32", 1), scalar())
    assert [s.split(" ")[0] for s in stmts] == ["(parallel_for", "(for", "(for"], stmts


def test_break_in_a_loop_under_a_constant_if_is_allowed_since_the_loop_is_serial():
    @qd.kernel
    def count() -> qd.i32:
        a = 0
        if True:
            for i in range(1000):
                if i == 100:
                    break
                a += 1
        return a

    assert count() == 100


def test_serialized_loop_with_break_becomes_a_serial_for():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        qd.loop_config(serialize=True)
        for i in range(10):
            if x[i] < 0:
                break
            x[i] = 1

    assert body(k, array()) == [
        "(for i (const int 0) (const int 10) ((if (bin lt (load x ((var i)) ()) (const int 0)) ((break)) ()) "
        "(store x ((var i)) () (const int 1))))"
    ]


def test_if_elif_else_while_continue():
    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.i32):
        for i in range(n):
            j = 0
            while j < i:
                j += 1
                if j == 2:
                    continue
                elif j > 5:
                    x[i] = -1
                else:
                    x[i] = j

    (loop,) = body(k, array(), scalar())
    assert "(decl j (const int 0))" in loop
    assert (
        "(while (bin lt (var j) (var i)) ((assign j (bin add (var j) (const int 1))) "
        "(if (bin eq (var j) (const int 2)) ((continue)) "
        "((if (bin gt (var j) (const int 5)) ((store x ((var i)) () (const int -1))) "
        "((store x ((var i)) () (var j))))))))"
    ) in loop


def test_static_if_and_unrolled_static_for_use_captured_values():
    scale = 3
    flags = (True, False)

    @qd.kernel
    def k(x: qd.types.ndarray()):
        for q in qd.static(range(2)):
            if qd.static(flags[q]):
                x[q] = scale * q
            else:
                x[q] = 0.5

    assert body(k, array()) == [
        "(store x ((const int 0)) () (const int 0))",
        "(store x ((const int 1)) () (const float 0.5))",
    ]


def test_template_parameters_bind_at_compile_time():
    @qd.kernel
    def k(x: qd.types.ndarray(), n: qd.template()):
        for i in qd.static(range(n)):
            x[i] = n

    assert header(k, array(), templates=(2,))["params"] == "(params (array x f32 1 () 1 1))"
    assert body(k, array(), templates=(2,)) == [
        "(store x ((const int 0)) () (const int 2))",
        "(store x ((const int 1)) () (const int 2))",
    ]


def test_expressions_comparisons_ternary_casts():
    @qd.kernel
    def k(x: qd.types.ndarray(), a: qd.i32, b: qd.f32):
        x[0] = 0 < a <= 10
        x[1] = a > 0 and not b < 1 or a == 3
        x[2] = a if a > b else b
        x[3] = qd.f32(a) / 2 + a // 3 + a % 4 + a**2 + float(a) + int(b)
        x[4] = qd.cast(b, qd.i64) << 1
        x[5] = qd.max(a, b, 1.0) + qd.min(a, 2) + abs(b) + qd.atan2(b, 1.0)

    stmts = body(k, array(), scalar(), scalar("f32"))
    assert stmts[0] == "(store x ((const int 0)) () (bin and (bin lt (const int 0) (arg a)) (bin le (arg a) (const int 10))))"
    assert stmts[1] == (
        "(store x ((const int 1)) () (bin or (bin and (bin gt (arg a) (const int 0)) "
        "(un not (bin lt (arg b) (const int 1)))) (bin eq (arg a) (const int 3))))"
    )
    assert stmts[2] == "(store x ((const int 2)) () (select (bin gt (arg a) (arg b)) (arg a) (arg b)))"
    assert stmts[3] == (
        "(store x ((const int 3)) () (bin add (bin add (bin add (bin add (bin add (bin truediv (cast f32 (arg a)) "
        "(const int 2)) (bin floordiv (arg a) (const int 3))) (bin mod (arg a) (const int 4))) "
        "(bin pow (arg a) (const int 2))) (cast f32 (arg a))) (cast i32 (arg b))))"
    )
    assert stmts[4] == "(store x ((const int 4)) () (bin shl (cast i64 (arg b)) (const int 1)))"
    assert stmts[5] == (
        "(store x ((const int 5)) () (bin add (bin add (bin add (bin max (bin max (arg a) (arg b)) (const float 1.0)) "
        "(bin min (arg a) (const int 2))) (un abs (arg b))) (bin atan2 (arg b) (const float 1.0))))"
    )


def test_math_functions():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in x:
            x[i] = qd.sqrt(x[i]) + qd.sin(1.0) + qd.math.clamp(x[i], 0.0, 1.0) + qd.floor(qd.exp(qd.log(2.0)))

    (loop,) = body(k, array())
    assert "(un sqrt (load x ((var i)) ()))" in loop
    assert "(bin min (bin max (load x ((var i)) ()) (const float 0.0)) (const float 1.0))" in loop
    # Compile-time constants fold in Python.
    assert "(const float 0.8414709848078965)" in loop
    assert "(const float 2.0)" in loop


def test_vectors_are_scalarized():
    @qd.kernel
    def k(v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1), out: qd.types.ndarray()):
        for i in v:
            a = v[i]
            b = qd.Vector([1.0, 0.0, 0.0])
            c = a.cross(b) + 2 * a
            m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
            w = m @ qd.Vector([a[0], a.y])
            out[i] = c.dot(b) + a.norm() + w[1] + m.transpose()[0, 1]
            v[i][2] = 0.0
            v[i] = c

    header_params = header(k, array("f32", 1, (3,)), array())["params"]
    assert header_params == "(params (array v f32 1 (3) 1 1) (array out f32 1 () 1 1))"
    (loop,) = body(k, array("f32", 1, (3,)), array())
    assert "(decl a (load v ((var i)) (0))) (decl a_1 (load v ((var i)) (1))) (decl a_2 (load v ((var i)) (2)))" in loop
    assert "(decl w_1 (bin add (bin mul (var m_2) (var a)) (bin mul (var m_3) (var a_1))))" in loop
    assert "(store v ((var i)) (2) (const float 0.0))" in loop
    assert "(store v ((var i)) (0) (var c)) (store v ((var i)) (1) (var c_1)) (store v ((var i)) (2) (var c_2))" in loop
    # transpose()[0, 1] is the original [1, 0].
    assert "(var w_1)) (var m_2))" in loop


def test_math_vector_types():
    @qd.kernel
    def k(out: qd.types.ndarray()):
        p = qd.math.vec2(1, 2)
        q = qd.math.normalize(p)
        out[0] = qd.math.length(q)

    stmts = body(k, array())
    assert stmts[0] == "(decl p (cast f32 (const int 1)))"
    assert stmts[1] == "(decl p_1 (cast f32 (const int 2)))"


def test_atomics_and_augmented_assignment():
    @qd.kernel
    def k(x: qd.types.ndarray()) -> qd.f32:
        total = 0.0
        for i in x:
            total += x[i]
            old = qd.atomic_max(x[0], x[i])
            x[1] -= old
            x[2] *= 2
            qd.atomic_add(x[3], 1)
        return total

    stmts = body(k, array())
    assert stmts[0] == "(decl total (const float 0.0))"
    loop = stmts[1]
    assert "(eval (atomic add (var total) (load x ((var i)) ())))" in loop
    assert "(decl old (atomic max x ((const int 0)) () (load x ((var i)) ())))" in loop
    assert "(eval (atomic sub x ((const int 1)) () (var old)))" in loop
    assert "(store x ((const int 2)) () (bin mul (load x ((const int 2)) ()) (const int 2)))" in loop
    assert "(eval (atomic add x ((const int 3)) () (const int 1)))" in loop
    assert stmts[2] == "(return (var total))"


def test_func_inlining_with_arguments_and_return_value():
    @qd.func
    def mad(a, b, c: qd.f32):
        a = a * b
        return a + c

    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in x:
            x[i] = mad(x[i], 2, 1)

    (loop,) = body(k, array())
    assert (
        "((decl a (load x ((var i)) ())) (decl b (const int 2)) (decl c f32 (const int 1)) "
        "(assign a (bin mul (var a) (var b))) (decl _ret (bin add (var a) (var c))) "
        "(store x ((var i)) () (var _ret)))"
    ) in loop


def test_func_early_return_uses_a_flag():
    @qd.func
    def first_negative(x: qd.template(), n) -> qd.i32:
        for i in range(n):
            if x[i] < 0:
                return i
        return -1

    @qd.kernel
    def k(x: qd.types.ndarray()) -> qd.i32:
        return first_negative(x, x.shape[0])

    stmts = body(k, array())
    assert stmts[:3] == ["(decl n (shape x 0))", "(decl _ret i32 (const int 0))", "(decl _returned (const int 0))"]
    assert stmts[3] == (
        "(for i (const int 0) (var n) ((if (bin lt (load x ((var i)) ()) (const int 0)) "
        "((assign _ret (var i)) (assign _returned (const int 1)) (break)) ())))"
    )
    assert stmts[4] == (
        "(if (bin eq (var _returned) (const int 0)) ((assign _ret (const int -1)) "
        "(assign _returned (const int 1))) ())"
    )
    assert stmts[5] == "(return (var _ret))"


class FakeField:
    """Duck-types a field for the frontend: storage, dtype, element shape and shape."""

    def __init__(self, shape, element_shape=()):
        self._array = object()
        self.dtype = qd.f32
        self._element_shape = element_shape
        self.shape = shape


def test_fields_are_global_array_params_appended_after_user_params():
    temperature = FakeField((8, 8))
    velocity = FakeField((8,), (2,))

    @qd.kernel
    def k(scale: qd.f32):
        for i, j in temperature:
            temperature[i, j] *= scale
        for i in range(velocity.shape[0]):
            velocity[i] = qd.Vector([0.0, 1.0])

    params = header(k, scalar("f32"))["params"]
    assert params == "(params (scalar scale f32) (array temperature f32 2 () 1 1) (array velocity f32 1 (2) 1 1))"
    stmts = body(k, scalar("f32"))
    assert stmts[0].startswith("(parallel_for (i j) ((const int 8) (const int 8))")
    assert stmts[1].startswith("(parallel_for (i_1) ((const int 8))")


def test_kernel_globals_are_captured_by_value():
    factor = 2.5

    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = factor

    first = body(k, array())
    factor = 4.0  # noqa: F841 - a later compile captures the new value
    assert first == ["(store x ((const int 0)) () (const float 2.5))"]
    assert body(k, array()) == ["(store x ((const int 0)) () (const float 4.0))"]


def test_default_dtypes_follow_init():
    @qd.kernel
    def k(x: qd.types.ndarray(), n: int, s: float):
        x[0] = n + s

    qd.init(default_fp=qd.f64, default_ip=qd.i64)
    try:
        text = k.ir((array(), scalar("i64"), scalar("f64")))
        assert "(default_fp f64) (default_ip i64)" in text
        assert k.params[1].launcher_entry() == ("scalar", "n", "i64")
    finally:
        qd.init()


def test_launcher_entries_describe_each_parameter():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.math.vec3, ndim=2), b: qd.types.ndarray(), t: qd.template(), n: qd.u8):
        pass

    entries = [k.params[i].launcher_entry() for i in k.runtime_positions]
    assert entries == [
        ("array", "a", "f32", 2, (3,), 0),
        ("array", "b", None, None, (), 0),
        ("scalar", "n", "u8"),
    ]


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_vector_value_locals_are_one_local_per_entry(shape):
    @qd.kernel
    def k(out: qd.types.ndarray()):
        if qd.static(len(shape) == 1):
            v = qd.Vector([1, 2, 3])
        else:
            v = qd.Matrix([[1, 2], [3, 4]])
        v += 1
        out[0] = v.sum()

    stmts = body(k, array())
    assert len([s for s in stmts if s.startswith("(decl v")]) == (4 if shape == (2, 2) else 3)


def test_shape_is_a_tuple_that_unpacks_into_ndrange():
    @qd.kernel
    def k(x: qd.types.ndarray(ndim=2)):
        for i, j in qd.ndrange(*x.shape):
            x[i, j] = len(x.shape)

    assert body(k, array("f32", 2)) == [
        "(parallel_for (i j) ((shape x 0) (shape x 1)) (config (block_dim 0) (serialize 0)) "
        "((store x ((var i) (var j)) () (const int 2))))"
    ]
