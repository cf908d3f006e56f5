# tests/python/test_frontend_corners.py: corners of the frontend that generated mutants found untested (issue 34).
"""Each test here kills mutants of scripts/mutation_check.py --generated that every other test let through:
argument checks that must refuse what is wrong and accept what is right, compile-time values, and the Python-
scope twins of kernel built-ins. docs/testing.md lists the mutants and the survivors that are explained instead."""
import numpy as np
import pytest

import quadrants as qd
from quadrants.types.enums import SNodeGradType


def _i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


def test_vector_types_hash_by_shape_so_they_work_as_dict_keys():
    a, b = qd.types.vector(3, qd.f32), qd.types.vector(3, qd.f32)
    assert hash(a) == hash(b)
    table = {a: "vec3"}
    assert table[b] == "vec3" and len({a, b, qd.types.matrix(2, 2, qd.f32)}) == 2


def test_str_methods_other_than_format_run_at_compile_time():
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def count():
        out[0] = len("a,b,c".split(","))
        out[1] = len("x-{}".replace("-", "--"))

    count()
    assert out.to_numpy().tolist() == [3, 5]


def test_qd_cast_refuses_a_third_argument():
    out = qd.field(qd.f32, shape=())

    @qd.kernel
    def three():
        out[None] = qd.cast(1, qd.f32, qd.i32)

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.cast\(x, dtype\) takes 2 arguments, but got 3"):
        three()


def test_fill_counts_keyword_arguments_in_its_message():
    @qd.kernel
    def fill_twice():
        v = qd.Vector([1, 2])
        v.fill(1, value=2)

    with pytest.raises(qd.QuadrantsTypeError, match=r"\.fill\(\) takes one value, but got 2"):
        fill_twice()


def test_checkpoint_takes_its_flag_positionally_too():
    @qd.kernel(graph=True, checkpoints=True)
    def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.checkpoint(7, flag):  # (cp_id, yield_on): two positional arguments are allowed
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
        for i in range(x.shape[0]):
            x[i] = x[i] + 10

    x = _i32(0, (4,))
    status = staged(x, _i32(1))
    assert status.yielded and status.checkpoint == 7
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 1))


def test_list_length_takes_the_full_index_of_a_dynamic_node_too():
    values = qd.field(qd.i32)
    qd.root.dense(qd.i, 4).dynamic(qd.j, 8).place(values)
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def fill_and_count():
        for k in range(3):
            qd.append(values.parent(), 1, k)
        out[0] = qd.length(values.parent(), [1, 7])  # the list's own axis (j = 7) is dropped
        out[1] = qd.length(values.parent(), [2, 0])

    fill_and_count()
    assert out.to_numpy().tolist() == [3, 0]


def test_static_print_shows_a_vector_as_a_list(capsys):
    @qd.kernel
    def show():
        qd.static_print(qd.Vector([1, 2]))

    show()
    assert "[1, 2]" in capsys.readouterr().out


def test_a_runtime_column_under_a_constant_row_writes_that_row_only():
    out = qd.field(qd.f32, shape=(2, 2, 2))

    @qd.kernel
    def write(j_in: qd.i32, j_out: qd.i32):
        m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        m[1, j_in] = 9.0
        n = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        n[0, j_out] = 9.0  # out of range: a write changes nothing (row 1 stays as it is)
        for r, c in qd.static(qd.ndrange(2, 2)):
            out[0, r, c] = m[r, c]
            out[1, r, c] = n[r, c]

    write(0, 2)
    assert out.to_numpy().tolist() == [[[1, 2], [9, 4]], [[1, 2], [3, 4]]]


def test_isnan_and_isinf_of_compile_time_numbers():
    out = qd.field(qd.i32, shape=4)

    @qd.kernel
    def classify():
        out[0] = qd.math.isnan(1.5)
        out[1] = qd.math.isinf(1.5)
        out[2] = qd.math.isnan(float("nan"))
        out[3] = qd.math.isinf(float("-inf"))

    classify()
    assert out.to_numpy().tolist() == [0, 0, 1, 1]


def test_raw_div_of_compile_time_floats_by_zero_is_ieee():
    out = qd.field(qd.f32, shape=3)

    @qd.kernel
    def divide():
        out[0] = qd.raw_div(1.0, 0.0)
        out[1] = qd.raw_div(-2.0, 0.0)
        out[2] = qd.raw_div(0.0, 0.0)

    divide()
    got = out.to_numpy()
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_a_primal_field_and_its_gradient_have_different_grad_types():
    x = qd.field(qd.f32, shape=2, needs_grad=True)
    primal, adjoint = x.snode.ptr.get_snode_grad_type(), x.grad.snode.ptr.get_snode_grad_type()
    assert primal == SNodeGradType.PRIMAL == 0 and adjoint == SNodeGradType.ADJOINT == 1
    assert len(set(SNodeGradType)) == 4  # no member is an alias of another


def test_a_grouped_zero_dimensional_ndrange_gives_an_empty_index():
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def once():
        for index in qd.grouped(qd.ndrange()):
            out[0] += 1
            out[1] = index.n + 10

    once()
    assert out.to_numpy().tolist() == [1, 10]


def test_deactivating_a_block_of_vectors_zeroes_every_component():
    v = qd.Vector.field(3, qd.f32)
    qd.root.pointer(qd.i, 2).dense(qd.i, 2).place(v)

    @qd.kernel
    def write():
        for i in range(4):
            v[i] = qd.Vector([1.0, 2.0, 3.0])

    @qd.kernel
    def clear_first_block():
        qd.deactivate(v.parent(2), [0])

    write()
    clear_first_block()
    assert v.to_numpy().tolist() == [[0, 0, 0], [0, 0, 0], [1, 2, 3], [1, 2, 3]]


def test_a_pyfunc_called_from_python_runs_the_function():
    @qd.pyfunc
    def twice(x):
        return x * 2

    assert twice(4) == 8


def test_a_checkpoint_label_from_the_enclosing_function():
    offset, label = 5, 7  # both closure variables of the kernel: the label must be found by its own name

    @qd.kernel(graph=True, checkpoints=True)
    def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.checkpoint(label, yield_on=flag):
            for i in range(x.shape[0]):
                x[i] = x[i] + offset

    x = _i32(0, (4,))
    status = staged(x, _i32(1))
    assert status.checkpoint == 7
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 5))


def test_do_while_checks_its_argument():
    @qd.kernel(graph=True)
    def two(c: qd.types.ndarray(qd.i32, ndim=0), d: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(c, d):
            for _ in range(1):
                c[()] = c[()] - 1

    @qd.kernel(graph=True)
    def unknown(c: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(not_defined_anywhere):  # noqa: F821
            for _ in range(1):
                c[()] = c[()] - 1

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"qd.graph.do_while\(\) takes exactly one argument"):
        two(_i32(1), _i32(1))
    with pytest.raises(qd.QuadrantsSyntaxError, match="'not_defined_anywhere' does not resolve to an ndarray kernel"):
        unknown(_i32(1))


def test_a_vectors_m_is_one():
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def sizes():
        v = qd.Vector([1.0, 2.0, 3.0])
        out[0] = v.n
        out[1] = v.m

    sizes()
    assert out.to_numpy().tolist() == [3, 1]


def test_a_matrix_func_parameter_checks_its_column_count():
    @qd.func
    def first(m: qd.types.matrix(2, 3, qd.f32)) -> qd.f32:
        return m[0, 0]

    out = qd.field(qd.f32, shape=())

    @qd.kernel
    def call():
        out[None] = first(qd.Matrix([[1.0, 2.0], [3.0, 4.0]]))

    with pytest.raises(qd.QuadrantsCompilationError, match="with m 3, but got 2"):
        call()


def test_random_draws_reach_real_funcs_three_calls_deep():
    @qd.real_func
    def draw() -> qd.f32:
        return qd.random(qd.f32)

    @qd.real_func
    def middle() -> qd.f32:
        return draw()

    @qd.real_func
    def outer() -> qd.f32:
        return middle()

    out = qd.field(qd.f32, shape=8)

    @qd.kernel
    def sample():
        for i in range(8):
            out[i] = outer()

    sample()
    got = out.to_numpy()
    assert ((got >= 0) & (got < 1)).all() and len(set(got.tolist())) > 1


def test_or_of_a_side_effect_evaluates_it_once():
    counter = qd.field(qd.i32, shape=())
    out = qd.field(qd.i32, shape=())

    @qd.kernel
    def pick():
        out[None] = qd.atomic_add(counter[None], 1) + 3 or 7

    pick()
    assert counter[None] == 1 and out[None] == 3


def test_is_signed_takes_integer_dtypes_only():
    assert qd.types.is_signed(qd.i32) and not qd.types.is_signed(qd.u8)
    with pytest.raises(TypeError, match="expects an integer dtype, but got qd.f32"):
        qd.types.is_signed(qd.f32)


def test_random_names_the_keyword_arguments_it_refuses():
    out = qd.field(qd.f32, shape=())

    @qd.kernel
    def draw():
        out[None] = qd.random(qd.f32, foo=1)

    with pytest.raises(qd.QuadrantsTypeError, match=r"1 positional and \['foo'\] keyword arguments"):
        draw()


def test_an_unknown_attribute_of_a_float_field_is_not_a_missing_gradient():
    x = qd.field(qd.f32, shape=2)

    @qd.kernel
    def read():
        x[0] = x.foo[0]

    with pytest.raises(qd.QuadrantsTypeError, match="Field 'x' has no attribute 'foo' inside kernels"):
        read()


def test_checkpoint_flags_must_be_ndarray_parameters():
    flag_field = qd.field(qd.i32, shape=())

    @qd.kernel(graph=True, checkpoints=True)
    def scalar_flag(a: qd.types.ndarray(qd.i32, ndim=1), s: qd.i32):
        with qd.checkpoint(0, yield_on=s):
            for i in range(4):
                a[i] = 1

    @qd.kernel(graph=True, checkpoints=True)
    def field_flag(a: qd.types.ndarray(qd.i32, ndim=1)):
        with qd.checkpoint(0, yield_on=flag_field):
            for i in range(4):
                a[i] = 1

    for kernel, name in ((scalar_flag, "s"), (field_flag, "flag_field")):
        with pytest.raises(qd.QuadrantsSyntaxError, match=f"got '{name}' which does not resolve to an ndarray kernel"):
            kernel(_i32(0, (4,)), 1) if kernel is scalar_flag else kernel(_i32(0, (4,)))


def test_a_tuple_returning_func_checks_the_value_it_returns():
    out = qd.field(qd.i32, shape=())

    @qd.func
    def three() -> (qd.i32, qd.i32):
        return 1, 2, 3

    @qd.func
    def one() -> (qd.i32, qd.i32):
        return 1

    @qd.kernel
    def too_many():
        a, b = three()
        out[None] = a + b

    @qd.kernel
    def not_a_tuple():
        a, b = one()
        out[None] = a + b

    for kernel, value in ((too_many, r"\(1, 2, 3\) \(tuple\)"), (not_a_tuple, r"1 \(int\)")):
        with pytest.raises(qd.QuadrantsTypeError, match=r"returns \(qd.i32, qd.i32\), but the value is the Python "
                           f"value {value}"):
            kernel()


def test_a_compile_time_name_cannot_be_an_atomic_target():
    limit = 5

    @qd.kernel
    def bump():
        qd.atomic_add(limit, 1)

    with pytest.raises(qd.QuadrantsCompilationError, match="'limit' is not a local variable or array element"):
        bump()


def test_rescale_index_scales_by_the_whole_ratio_of_the_shapes():
    coarse, fine = qd.field(qd.f32, shape=2), qd.field(qd.f32, shape=5)  # 5 // 2 = 2: upstream's integer ratio
    out = qd.field(qd.i32, shape=4)

    @qd.kernel
    def scale():
        for i in range(4):
            out[i] = qd.rescale_index(coarse, fine, [i])[0]

    scale()
    assert out.to_numpy().tolist() == [0, 2, 4, 6]


def test_matmul_of_a_matrix_and_a_vector_is_a_vector():
    out = qd.field(qd.f32, shape=3)

    @qd.kernel
    def products():
        m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        v = qd.Vector([1.0, 10.0])
        w = m @ v
        out[0] = w[0]
        out[1] = w[1]
        out[2] = v @ v

    products()
    assert out.to_numpy().tolist() == [21.0, 43.0, 101.0]


def test_struct_for_variables_must_be_new_names_but_ndrange_ones_may_shadow():
    # As upstream: a range or struct-for loop variable already in scope is an error; an ndrange one shadows it.
    f = qd.field(qd.i32, shape=3)

    @qd.kernel
    def shadowing_struct_for():
        i = 0
        for i in f:
            f[i] = i

    with pytest.raises(qd.QuadrantsSyntaxError, match="already declared in the outer scope"):
        shadowing_struct_for()

    @qd.kernel
    def shadowing_ndrange(x: qd.types.ndarray()):
        for k in range(1):
            j = 7 + k
            for j in qd.ndrange(3):
                x[j] = j * 2

    x = np.zeros(3, np.int32)
    shadowing_ndrange(x)
    assert x.tolist() == [0, 2, 4]
