# tests/python/test_graph_sections.py: qd.graph.parallel_context() regions of qd.graph.parallel() sections.
#
# Sections run in source order here, so each result must equal the serial program's; the IR checks make sure
# a section's top-level `for` stays a parallel loop. Every compile error is checked by its message.
import inspect
import re
import warnings

import numpy as np
import pytest

import quadrants as qd

N = 64


def zeros(*shape, dtype=np.float32):
    return np.zeros(shape or (N,), dtype=dtype)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


# ---- results equal the serial reference ----------------------------------------------------------------
@qd.kernel(graph=True)
def two_sections_then_join(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1),
                           z: qd.types.ndarray(qd.f32, ndim=1)):
    with qd.graph.parallel_context():
        with qd.graph.parallel():
            for i in range(x.shape[0]):
                x[i] = x[i] + 1.0
            for i in range(x.shape[0]):
                x[i] = x[i] * 3.0
        with qd.graph.parallel():
            for i in range(y.shape[0]):
                y[i] = y[i] + 2.0
    for i in range(z.shape[0]):
        z[i] = x[i] + y[i]


def test_two_sections_and_the_work_after_the_region_match_the_serial_program():
    x0 = np.arange(N, dtype=np.float32)
    y0 = np.linspace(-1, 1, N).astype(np.float32)
    x, y, z = x0.copy(), y0.copy(), zeros()
    two_sections_then_join(x, y, z)
    x1, y1 = (x0 + 1) * 3, y0 + 2  # the serial program's values, in float32 as the kernel computes them
    np.testing.assert_array_equal(x, x1)
    np.testing.assert_array_equal(y, y1)
    np.testing.assert_array_equal(z, x1 + y1)
    two_sections_then_join(x, y, z)  # a second launch of the same compiled kernel
    np.testing.assert_array_equal(x, (x1 + 1) * 3)


def test_a_section_top_level_for_stays_a_parallel_loop():
    ir = two_sections_then_join.export_ir(zeros(), zeros(), zeros())
    assert ir.count("parallel_for") == 4  # three loops in the sections and one after the region
    assert "(for " not in ir


def test_back_to_back_regions_with_serial_statements():
    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1),
          a: qd.types.ndarray(qd.f32, ndim=1), b: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 1.0
            with qd.graph.parallel():
                y[0] = 2.0
        with qd.graph.parallel_context():
            """A docstring and a pass are allowed in a region."""
            pass
            with qd.graph.parallel():
                a[0] = x[0] * 10.0
            with qd.graph.parallel():
                b[0] = y[0] * 10.0

    x, y, a, b = zeros(1), zeros(1), zeros(1), zeros(1)
    k(x, y, a, b)
    assert (x[0], y[0], a[0], b[0]) == (1.0, 2.0, 10.0, 20.0)


def test_static_if_compiles_an_optional_section_in_or_out():
    def make(enabled):
        @qd.kernel(graph=True)
        def k(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1)):
            with qd.graph.parallel_context():
                with qd.graph.parallel():
                    for i in range(x.shape[0]):
                        x[i] = x[i] + 1.0
                if qd.static(enabled):
                    with qd.graph.parallel():
                        for i in range(y.shape[0]):
                            y[i] = y[i] + 1.0
                else:
                    with qd.graph.parallel():
                        for i in range(y.shape[0]):
                            y[i] = y[i] - 5.0
        return k

    for enabled, expected_y in ((True, 1.0), (False, -5.0)):
        x, y = zeros(), zeros()
        make(enabled)(x, y)
        np.testing.assert_array_equal(x, 1.0)
        np.testing.assert_array_equal(y, expected_y)


def test_static_loops_unroll_into_sections():
    rows, cols = 2, 3

    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=2), y: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            for r in qd.static(range(rows)):
                for c in qd.static(range(cols)):
                    with qd.graph.parallel():
                        for i in range(x.shape[1]):
                            x[r * cols + c, i] = x[r * cols + c, i] + (r * cols + c + 1)
            for _ in qd.static(range(0)):  # no section at all
                with qd.graph.parallel():
                    for i in range(y.shape[0]):
                        y[i] = 100.0
            if qd.static(True):
                with qd.graph.parallel():
                    for i in range(y.shape[0]):
                        y[i] = y[i] + 7.0

    x, y = zeros(rows * cols, N), zeros()
    k(x, y)
    np.testing.assert_array_equal(x, np.repeat(np.arange(1, rows * cols + 1, dtype=np.float32)[:, None], N, axis=1))
    np.testing.assert_array_equal(y, 7.0)


def test_sections_calling_the_funcs_of_a_data_oriented_object():
    @qd.data_oriented
    class Solver:
        def __init__(self):
            self.a = qd.field(qd.i32, shape=(4,))
            self.b = qd.field(qd.i32, shape=(4,))
            self.steps = [self.fill_a, self.fill_b]

        @qd.func
        def fill_a(self):
            for i in range(4):
                self.a[i] += 1

        @qd.func
        def fill_b(self):
            for i in range(4):
                self.b[i] += 10

        @qd.kernel(graph=True)
        def step(self):
            with qd.graph.parallel_context():
                for k in qd.static(range(len(self.steps))):
                    with qd.graph.parallel():
                        self.steps[k]()

    solver = Solver()
    solver.step()
    solver.step()
    np.testing.assert_array_equal(solver.a.to_numpy(), 2)
    np.testing.assert_array_equal(solver.b.to_numpy(), 20)


def test_a_region_inside_a_serial_loop_runs_once_per_iteration():
    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.i32, ndim=1), y: qd.types.ndarray(qd.i32, ndim=1)):
        for _ in range(3):
            with qd.graph.parallel_context():
                with qd.graph.parallel():
                    for i in range(x.shape[0]):
                        x[i] += 1
                with qd.graph.parallel():
                    for i in range(y.shape[0]):
                        y[i] += 2

    x, y = zeros(dtype=np.int32), zeros(dtype=np.int32)
    k(x, y)
    np.testing.assert_array_equal(x, 3)
    np.testing.assert_array_equal(y, 6)


def test_a_section_names_are_its_own_scope_as_upstream():
    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                t = 2.0
                x[0] = t
            with qd.graph.parallel():
                t = 3.0  # a new local: the first section's t is not visible here
                x[1] = t

    x = zeros(2)
    k(x)
    np.testing.assert_array_equal(x, [2.0, 3.0])


def test_gpu_graph_the_old_name_of_graph_also_allows_regions():
    @qd.kernel(gpu_graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 4.0

    x = zeros(1)
    k(x)
    assert x[0] == 4.0


# ---- Python scope --------------------------------------------------------------------------------------
def test_outside_kernels_they_are_context_managers_that_do_nothing():
    seen = []
    with qd.graph.parallel_context() as region:
        with qd.graph.parallel() as section:
            seen.append("a")
        with qd.graph_parallel():
            seen.append("b")
    assert seen == ["a", "b"] and region is None and section is None


def test_flat_names_are_the_same_objects_and_do_not_warn_in_python():
    assert qd.graph_parallel_context is qd.graph.parallel_context
    assert qd.graph_parallel is qd.graph.parallel
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with qd.graph_parallel_context():
            with qd.graph_parallel():
                pass


# ---- the deprecated flat spellings in kernels ---------------------------------------------------------
def test_flat_spellings_warn_at_their_own_line_and_still_work():
    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph_parallel_context():
            with qd.graph_parallel():
                x[0] = 1.0
            with qd.graph.parallel():
                y[0] = 2.0

    x, y = zeros(1), zeros(1)
    with pytest.warns(DeprecationWarning) as record:
        k(x, y)
    found = [(str(w.message), w.filename, w.lineno) for w in record if issubclass(w.category, DeprecationWarning)]
    assert len(found) == 2  # the canonical qd.graph.parallel() does not warn
    assert "qd.graph_parallel_context() is deprecated" in found[0][0] and "qd.graph.parallel_context()" in found[0][0]
    assert found[0][1:] == (__file__, line_of(k.fn, "qd.graph_parallel_context()"))
    assert "qd.graph_parallel() is deprecated" in found[1][0] and "qd.graph.parallel()" in found[1][0]
    assert found[1][1:] == (__file__, line_of(k.fn, "qd.graph_parallel()"))
    assert (x[0], y[0]) == (1.0, 2.0)


def test_canonical_spellings_do_not_warn():
    x, y, z = zeros(), zeros(), zeros()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        two_sections_then_join(x, y, z)
        qd.kernel(graph=True)(two_sections_then_join.fn)(x, y, z)  # a fresh kernel: translated again


# ---- compile errors ------------------------------------------------------------------------------------
def error_of(kernel, *args):
    with pytest.raises(qd.QuadrantsSyntaxError) as info:
        kernel(*args)
    return info.value


def test_a_section_outside_a_region():
    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel():
            x[0] = 1.0

    err = error_of(k, zeros(1))
    assert "qd.graph.parallel() can only be used directly inside a qd.graph.parallel_context() region" in err.message
    assert err.line == line_of(k.fn, "with qd.graph.parallel()")


def test_a_region_needs_a_graph_kernel():
    @qd.kernel
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 1.0

    err = error_of(k, zeros(1))
    assert "qd.graph.parallel_context() requires @qd.kernel(graph=True)" in err.message
    assert "@qd.kernel(graph=True)" in err.hint


def test_a_region_is_refused_in_a_checkpoints_kernel():
    @qd.kernel(graph=True, checkpoints=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 1.0

    assert "checkpoints=True" in error_of(k, zeros(1)).message


def test_a_region_is_refused_in_a_func():
    @qd.func
    def helper(x: qd.template()):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 1.0

    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1)):
        helper(x)

    assert "can only be used inside @qd.kernel, not @qd.func" in error_of(k, zeros(1)).message


ONLY_SECTIONS = re.escape("A qd.graph.parallel_context() region may contain only 'with qd.graph.parallel():' blocks")


def test_a_region_holds_only_sections():
    @qd.kernel(graph=True)
    def runtime_loop(x: qd.types.ndarray(qd.f32, ndim=2), n: qd.i32):
        with qd.graph.parallel_context():
            for b in range(n):
                with qd.graph.parallel():
                    x[b, 0] = 1.0

    @qd.kernel(graph=True)
    def runtime_if(x: qd.types.ndarray(qd.f32, ndim=2), n: qd.i32):
        with qd.graph.parallel_context():
            if n:
                with qd.graph.parallel():
                    x[0, 0] = 1.0

    @qd.kernel(graph=True)
    def work_in_a_static_loop(x: qd.types.ndarray(qd.f32, ndim=2), n: qd.i32):
        with qd.graph.parallel_context():
            for b in qd.static(range(2)):
                x[b, 0] = 1.0
                with qd.graph.parallel():
                    x[b, 1] = 1.0

    @qd.kernel(graph=True)
    def work_in_an_untaken_static_branch(x: qd.types.ndarray(qd.f32, ndim=2), n: qd.i32):
        with qd.graph.parallel_context():
            if qd.static(False):
                x[0, 0] = 1.0

    for kernel, offending in ((runtime_loop, "for b in range(n)"), (runtime_if, "if n:"),
                              (work_in_a_static_loop, "x[b, 0] = 1.0"),
                              (work_in_an_untaken_static_branch, "x[0, 0] = 1.0")):
        err = error_of(kernel, zeros(2, 2), 2)
        assert re.match(ONLY_SECTIONS, err.message), err.message
        assert err.line == line_of(kernel.fn, offending)


def test_sections_take_no_arguments():
    @qd.kernel(graph=True)
    def named_section(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel(name="a"):
                x[0] = 1.0

    @qd.kernel(graph=True)
    def region_with_argument(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context(2):
            with qd.graph.parallel():
                x[0] = 1.0

    assert "qd.graph.parallel() takes no arguments" in error_of(named_section, zeros(1)).message
    assert "qd.graph.parallel_context() takes no arguments" in error_of(region_with_argument, zeros(1)).message


def test_sections_cannot_nest_even_through_a_func():
    @qd.kernel(graph=True)
    def direct(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                for _ in qd.static(range(1)):
                    with qd.graph.parallel():
                        x[0] = 1.0

    @qd.func
    def section_of(x: qd.template()):
        with qd.graph.parallel():
            x[0] = 1.0

    @qd.kernel(graph=True)
    def through_func(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                section_of(x)

    for kernel in (direct, through_func):
        assert "qd.graph.parallel() sections cannot be nested" in error_of(kernel, zeros(1)).message


def test_a_section_holds_straight_line_work():
    @qd.kernel(graph=True)
    def region_in_section(x: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                with qd.graph.parallel_context():
                    with qd.graph.parallel():
                        x[0] = 1.0

    @qd.kernel(graph=True)
    def do_while_in_section(x: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                while qd.graph.do_while(c):
                    x[0] = 1.0

    @qd.kernel(graph=True)
    def checkpoint_in_section(x: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                with qd.checkpoint(0, yield_on=c):
                    x[0] = 1.0

    @qd.kernel(graph=True)
    def return_in_section(x: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                x[0] = 1.0
                return

    cases = ((region_in_section, "qd.graph.parallel_context() cannot appear inside a qd.graph.parallel() section"),
             (do_while_in_section, "qd.graph.do_while() cannot appear inside a qd.graph.parallel() section"),
             (checkpoint_in_section, "qd.checkpoint() cannot appear inside a qd.graph.parallel() section"),
             (return_in_section, "A qd.graph.parallel() section cannot return"))
    for kernel, message in cases:
        assert message in error_of(kernel, zeros(1), np.zeros((), np.int32)).message


def test_other_with_statements_stay_unsupported():
    @qd.kernel(graph=True)
    def other_manager(x: qd.types.ndarray(qd.f32, ndim=1)):
        with warnings.catch_warnings():
            x[0] = 1.0

    @qd.kernel(graph=True)
    def with_as(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context() as region:
            with qd.graph.parallel():
                x[0] = 1.0

    @qd.kernel(graph=True)
    def two_managers(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context(), qd.graph.parallel():
            x[0] = 1.0

    @qd.kernel(graph=True)
    def not_called(x: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context:
            x[0] = 1.0

    err = error_of(other_manager, zeros(1))
    assert err.message.startswith("Unsupported 'with warnings.catch_warnings()' inside a kernel")
    assert "qd.graph.parallel_context()" in err.hint
    assert "'with ... as ...' is not supported inside kernels" in error_of(with_as, zeros(1)).message
    assert "takes a single context manager" in error_of(two_managers, zeros(1)).message
    assert "qd.graph.parallel_context must be called" in error_of(not_called, zeros(1)).message


def test_the_task_count_of_the_last_launch_counts_parallel_loops_and_serial_runs_between_them():
    # impl.get_runtime().prog.get_num_offloaded_tasks_on_last_call(), which upstream's graph tests read.
    from quadrants.lang import impl

    @qd.kernel(graph=True)
    def sections(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                for i in range(x.shape[0]):
                    x[i] += 1.0
            with qd.graph.parallel():
                y[0] = 5.0
                for i in range(1, y.shape[0]):
                    y[i] += 2.0

    @qd.kernel
    def one_loop(x: qd.types.ndarray(qd.f32, ndim=1)):
        for i in x:
            x[i] += 1.0

    x, y = np.zeros(4, np.float32), np.zeros(4, np.float32)
    prog = impl.get_runtime().prog
    sections(x, y)
    assert prog.get_num_offloaded_tasks_on_last_call() == 3  # loop, the store, loop
    one_loop(x)
    assert prog.get_num_offloaded_tasks_on_last_call() == 1
    np.testing.assert_array_equal(x, [2, 2, 2, 2])
    np.testing.assert_array_equal(y, [5, 2, 2, 2])
