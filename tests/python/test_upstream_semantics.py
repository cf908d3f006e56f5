# tests/python/test_upstream_semantics.py: kernel-language corners where upstream Quadrants' own tests showed
# that we computed or accepted something different from upstream 1.3.3.
"""Each test pins one behaviour of upstream Quadrants 1.3.3 that an upstream test found we did differently."""
import numpy as np
import pytest

import quadrants as qd


def test_chained_assignment_evaluates_the_value_once_before_any_store():
    @qd.kernel
    def chained() -> qd.i32:
        a = 1
        b = 1
        a = b = a + b  # Python: both become 2; storing a first must not change what b gets
        return a * 10 + b

    assert chained() == 22


def test_a_kernel_reads_the_new_fields_of_a_data_oriented_self_after_its_tree_is_destroyed():
    @qd.data_oriented
    class Holder:
        def build(self):
            self.x = qd.field(qd.i32)
            builder = qd.FieldsBuilder()
            builder.dense(qd.i, 4).place(self.x)
            self.tree = builder.finalize()

        @qd.kernel
        def fill(self, m: qd.i32):
            for i in range(4):
                self.x[i] = m * i

    holder = Holder()
    holder.build()
    holder.fill(1)
    assert holder.x.to_numpy().tolist() == [0, 1, 2, 3]
    holder.tree.destroy()
    holder.build()  # same self, new field: the kernel compiled for the old one must not write freed storage
    holder.fill(2)
    assert holder.x.to_numpy().tolist() == [0, 2, 4, 6]


def test_python_scope_round_floor_ceil_keep_a_vector_a_vector_and_take_a_dtype():
    rounded = qd.round(qd.Vector([0.2, 2.5, -1.5]))
    assert isinstance(rounded, qd.Vector) and rounded.to_list() == [0.0, 2.0, -2.0]  # numpy's half-to-even
    assert qd.floor(qd.Vector([0.5, -0.5]), qd.i32).to_list() == [0, -1]
    assert qd.ceil(2.2, qd.i32) == 3 and isinstance(qd.ceil(2.2, qd.i32), np.int32)
    assert qd.round(2.5) == 2.0


@pytest.mark.parametrize("make", [qd.Vector.field, qd.Vector.ndarray])
def test_from_numpy_takes_a_vector_as_a_row_as_well_as_a_column(make):
    vectors = make(3, qd.i32, shape=(2, 5))
    values = np.arange(30, dtype=np.int32).reshape(2, 5, 3)
    vectors.from_numpy(values.reshape(2, 5, 1, 3))
    assert (vectors.to_numpy() == values).all()
    vectors.from_numpy(values.reshape(2, 5, 3, 1) + 1)
    assert (vectors.to_numpy() == values + 1).all()
    with pytest.raises(ValueError, match=r"shape \(2, 5, 3\).*\(5, 2, 3\)"):
        vectors.from_numpy(values.reshape(5, 2, 3))


def test_a_vector_condition_in_a_conditional_expression_asks_for_qd_select():
    out = qd.Vector.field(3, qd.f32, shape=())

    @qd.kernel
    def pick():
        v = qd.Vector([1.0, -2.0, 3.0])
        out[None] = 0 if v < 0 else v

    with pytest.raises(qd.QuadrantsSyntaxError, match=r'a 3-vector.*Please use "qd.select" instead'):
        pick()


def test_sum_of_kernel_values_in_a_list_or_dict_comprehension_adds_them():
    x = qd.field(qd.i32, shape=8)

    @qd.kernel
    def sums() -> qd.f32:
        listed = sum([x[0] for j in range(100) if j > 2 if j < 5])  # two copies of x[0]
        keyed = {x[j]: x[j] + j for j in range(100) if j > 2 if j < 5}  # kernel-value keys, as upstream allows
        return listed * 1000 + sum(keyed.values()) + sum([x[1], 2], 0.5)

    x.from_numpy(np.arange(8, dtype=np.int32) * 2)
    assert sums() == 0 * 1000 + (3 * 2 + 3) + (4 * 2 + 4) + 2 + 2 + 0.5
    x[0] = 5
    assert sums() == 10 * 1000 + 21 + 4.5


@pytest.mark.parametrize("n", [1, 5, 6])
def test_inverse_of_1x1_and_of_5x5_and_up_needing_row_pivots(n):
    # A permuted upper-triangular matrix: its top-left entry is 0 (for n > 1), so elimination must swap rows.
    upper = np.triu(np.random.default_rng(n).standard_normal((n, n)))
    np.fill_diagonal(upper, np.arange(2.0, n + 2.0))
    matrix = upper[::-1].copy()
    m = qd.Matrix.field(n, n, qd.f64, shape=())
    inverse = qd.Matrix.field(n, n, qd.f64, shape=())
    m.from_numpy(matrix)

    @qd.kernel
    def invert():
        inverse[None] = m[None].inverse()

    invert()
    np.testing.assert_allclose(inverse.to_numpy(keep_dims=True), np.linalg.inv(matrix), rtol=1e-12, atol=1e-12)


def test_determinant_of_1x1_and_inverse_size_limit():
    m1 = qd.Matrix.field(1, 1, qd.f32, shape=())
    m1[None] = [[4.0]]
    m13 = qd.Matrix.field(13, 13, qd.f32, shape=())

    @qd.kernel
    def det() -> qd.f32:
        return m1[None].determinant()

    @qd.kernel
    def too_large():
        m13[None] = m13[None].inverse()

    assert det() == 4.0
    with pytest.raises(qd.QuadrantsCompilationError, match=r"from 1x1 to 12x12, as upstream, but got 13x13") as info:
        too_large()
    assert "wrong arguments" not in str(info.value)  # the method's own error, not wrapped as a binding error


def test_a_func_may_recurse_when_qd_static_ends_the_recursion():
    @qd.func
    def fibonacci_matrix(n: qd.template()):
        if qd.static(n):
            m = fibonacci_matrix(n // 2)
            m = m @ m
            if qd.static(n % 2):
                m = m @ qd.Matrix([[1, 1], [1, 0]])
            return m
        else:
            return qd.Matrix([[1, 0], [0, 1]])

    @qd.kernel
    def fibonacci(n: qd.template()) -> qd.i32:
        return fibonacci_matrix(n)[1, 0]

    assert [fibonacci(n) for n in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def test_a_python_helper_reading_a_field_reads_it_when_the_kernel_runs():
    source = qd.field(qd.i32, shape=())
    out = qd.field(qd.i32, shape=())

    def plus(n):  # a plain Python function, called with a compile-time argument
        return source[None] + n

    @qd.kernel
    def run():
        out[None] = plus(1)

    source[None] = 1
    run()
    assert out[None] == 2
    source[None] = 5  # before: the value read while compiling (1) was baked into the kernel
    run()
    assert out[None] == 6


def test_upstream_impl_subscript_and_compiling_callable_in_python_helpers():
    from quadrants.lang import impl

    total = qd.field(qd.i32, shape=())
    out = qd.field(qd.i32, shape=())

    def add_to_total(n):  # upstream's spelling of qd.atomic_add(total[None], n) in a Python helper
        builder = impl.get_runtime().compiling_callable.ast_builder()
        return qd.atomic_add(impl.subscript(builder, total, None), n)

    def corner(m):
        return impl.subscript(impl.get_runtime().compiling_callable.ast_builder(), m, 1, 0)

    @qd.kernel
    def run():
        out[None] = (0 <= add_to_total(2) < 1) * 10 + corner(qd.Matrix([[1, 2], [3, 4]]))

    run()
    assert total[None] == 2 and out[None] == 13  # the atomic ran once, before the chained comparison


def test_static_assignment_to_a_name_of_the_same_block_is_an_error_and_shadows_an_outer_one():
    @qd.kernel
    def shadows() -> qd.i32:
        total = 0
        for i in qd.static(range(3)):
            step = qd.static(i * 2)  # each unrolled iteration is a block of its own
            total += step
        b = 5
        if total > 0:
            b = qd.static(7)  # a new b of this block; the outer b keeps 5
            total += b
        return total + b

    @qd.kernel
    def recreates():
        a = 1
        a = qd.static(2)

    assert shadows() == 6 + 7 + 5
    with pytest.raises(qd.QuadrantsSyntaxError, match="Recreating variables is not allowed"):
        recreates()


def test_polar_decompose_names_its_supported_sizes():
    m = qd.Matrix.field(1, 1, qd.f32, shape=())

    @qd.kernel
    def decompose():
        qd.polar_decompose(m[None], qd.f32)

    with pytest.raises(qd.QuadrantsCompilationError, match="Polar decomposition only supports 2×2 and 3×3 matrices"):
        decompose()



def test_negative_constant_indices_of_vectors_and_matrices_are_upstreams_error():
    out = qd.field(qd.i32, shape=4)

    @qd.kernel
    def last(i: qd.i32):
        out[0] = qd.Vector([i, i + 1, i + 2])[-1]

    @qd.kernel
    def all_but_last(i: qd.i32):
        out[0] = qd.Vector([i, i + 1, i + 2])[:-1].sum()

    @qd.kernel
    def matrix_row(i: qd.i32):
        m = qd.Matrix([[i, 1], [2, 3]])
        m[-1, 0] = 4

    @qd.kernel
    def counted_from_the_front(i: qd.i32):
        v = qd.Vector([i, i + 1, i + 2])
        out[0], out[1], out[2] = v[2], v[:2].sum(), v[::-1][0]  # a negative step stays Python's

    for kernel in (last, all_but_last, matrix_row):
        with pytest.raises(qd.QuadrantsSyntaxError, match="Negative indices are not supported in Quadrants kernels"):
            kernel(1)
    counted_from_the_front(1)
    assert out.to_numpy()[:3].tolist() == [3, 3, 3]


def test_an_atomic_on_a_value_that_is_no_target_names_the_atomic():
    @qd.kernel
    def on_a_list():
        y = qd.Vector([1, 2, 3])
        qd.atomic_min([3, 2, 1], y)

    with pytest.raises(qd.QuadrantsSyntaxError,
                       match="cannot use a non-writable target as the first operand of 'atomic_min'"):
        on_a_list()


def test_a_name_first_assigned_under_a_constant_non_static_if_ends_with_the_branch():
    out = qd.field(qd.i32, shape=())

    @qd.kernel
    def leaks():
        if True:
            a = 0
        else:
            a = 1
        out[None] = a

    @qd.kernel
    def updates_an_outer_name():
        a = 5
        if True:
            a = 7
        out[None] = a

    with pytest.raises(qd.QuadrantsCompilationError, match='Name "a" is not defined'):
        leaks()
    updates_an_outer_name()
    assert out[None] == 7


def test_a_runtime_slice_bound_is_upstreams_error():
    @qd.kernel
    def runtime_start(i: qd.i32):
        a = qd.Vector([0, 1, 2, 3, 4, 5, 6])
        b = a[i::2]

    with pytest.raises(qd.QuadrantsCompilationError, match="Quadrants does not support variables in slice now"):
        runtime_start(1)


def test_a_vector_of_another_shape_stored_into_an_array_element_names_upstreams_ir_types():
    f = qd.Vector.field(4, dtype=qd.i32, shape=())
    ivec3 = qd.types.vector(3, qd.i32)

    @qd.kernel
    def three_into_four():
        f[None] = qd.Vector([1, 2, 3])

    @qd.kernel
    def list_of_two(arr: qd.types.NDArray[ivec3, 1]):
        for i in arr:
            arr[i] = [1, 2.5]

    with pytest.raises(qd.QuadrantsTypeError, match=r"cannot assign '\[Tensor \(3\) i32\]' to '\[Tensor \(4\) i32\]'"):
        three_into_four()
    with pytest.raises(qd.QuadrantsTypeError, match=r"cannot assign '\[Tensor \(2\) f32\]' to '\[Tensor \(3\) i32\]'"):
        list_of_two(qd.ndarray(ivec3, shape=2))


def test_a_struct_argument_of_another_struct_type_is_upstreams_runtime_type_error():
    sphere = qd.types.struct(center=qd.math.vec3, radius=float)
    circle = qd.types.struct(center=qd.math.vec2, radius=float)

    @qd.kernel
    def takes_a_sphere(s: sphere):
        pass

    with pytest.raises(qd.QuadrantsRuntimeTypeError, match=r"argument 's' must be a .*center.*but got"):
        takes_a_sphere(circle(center=qd.math.vec2([1, 2]), radius=2.33))


def test_a_func_checks_the_array_it_is_given_against_its_ndarray_annotation():
    @qd.func
    def set_first(a: qd.types.ndarray(dtype=qd.math.vec2, ndim=1)):
        a[0] = [100, 100]

    @qd.func
    def set_any(a: qd.types.ndarray(ndim=1)):
        a[0] = [100, 100, 100]

    @qd.func
    def scalar_f32(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        a[0] = 1

    @qd.kernel
    def vec3_to_vec2(x: qd.types.ndarray(ndim=1)):
        set_first(x)

    @qd.kernel
    def vec3_to_any(x: qd.types.ndarray(ndim=1)):
        set_any(x)

    @qd.kernel
    def i32_to_f32(x: qd.types.ndarray(ndim=1)):
        scalar_f32(x)

    arr = qd.ndarray(qd.math.vec3, shape=4)
    with pytest.raises(qd.QuadrantsCompilationError, match=r"Invalid value for argument a - required element type: "
                       r"\[Tensor \(2\) f32\], but \[Tensor \(3\) f32\] is provided"):
        vec3_to_vec2(arr)
    vec3_to_any(arr)
    assert arr[0].to_list() == [100, 100, 100]  # a func's array parameter is the caller's array, as upstream
    with pytest.raises(qd.QuadrantsCompilationError, match="Expect element type f32 for argument a, but get i32"):
        i32_to_f32(qd.ndarray(qd.i32, shape=4))


def test_another_thread_reads_fields_while_a_kernel_translation_runs_a_python_helper():
    import threading

    source = qd.field(qd.i32, shape=())
    out = qd.field(qd.i32, shape=())
    inside, release, seen = threading.Event(), threading.Event(), []

    def waits(n):  # run at compile time: it holds the translation until the other thread has read a field
        inside.set()
        release.wait(10)
        return n + 1

    @qd.kernel
    def run():
        out[None] = waits(1)

    def reader():
        inside.wait(10)
        seen.append(source[None])  # Python scope in this thread, whatever the other thread is translating
        release.set()

    source[None] = 4
    thread = threading.Thread(target=reader)
    thread.start()
    run()
    thread.join()
    assert seen == [4] and out[None] == 2
