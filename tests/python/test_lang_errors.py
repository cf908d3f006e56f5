# tests/python/test_lang_errors.py: user errors of the kernel frontend: file:line, source line, caret, message, hint.
import inspect

import numpy as np

import pytest

import quadrants as qd
from quadrants.kernels.definition import _located_error
from quadrants.frontend.source import function_source

ARRAY = ("array", "f32", 1, (), True, True)


def error_of(kernel, spec=(ARRAY,), templates=()):
    with pytest.raises(qd.QuadrantsCompilationError) as info:
        kernel.ir(spec, templates)
    return info.value


def line_of(fn, text):
    """The file line of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_unsupported_syntax_shows_file_line_source_and_caret():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in x:
            x[i] = len({3})  # a set display: upstream has no rule for it either

    err = error_of(k)
    assert isinstance(err, qd.QuadrantsSyntaxError)
    line = line_of(k.fn, "len({3})")
    lines = str(err).splitlines()
    assert lines[0] == f"{__file__}:{line}:24: Unsupported node \"Set\": this Python syntax is not supported inside kernels."
    assert lines[1] == f'File "{__file__}", line {line}, in k:'  # upstream's frame: the line, carets under the node
    assert lines[2] == "            x[i] = len({3})  # a set display: upstream has no rule for it either"
    assert lines[3] == "                       ^^^"
    assert lines[4] == 'Unsupported node "Set": this Python syntax is not supported inside kernels.'  # upstream's close
    assert lines[5].startswith("hint: ")
    assert (err.filename, err.line, err.col) == (__file__, line, 23)


def test_break_in_a_parallel_loop_suggests_serializing():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in x:
            if x[i] > 0:
                break

    err = error_of(k)
    assert err.message == "Cannot break in the outermost loop: it runs in parallel."
    assert err.hint == "add qd.loop_config(serialize=True) before the loop to run it serially."
    assert err.line == line_of(k.fn, "break")


def test_undefined_name():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = undefined_thing  # noqa: F821

    err = error_of(k)
    assert isinstance(err, qd.QuadrantsNameError) and isinstance(err, NameError)  # upstream's class
    assert err.message == 'Name "undefined_thing" is not defined.'
    assert err.col == inspect.getsourcelines(k.fn)[0][2].index("undefined_thing")


def test_vector_assigned_to_scalar_is_a_type_error():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        v = qd.Vector([1, 2])
        x[0] = v

    err = error_of(k)
    assert isinstance(err, qd.QuadrantsTypeError) and isinstance(err, TypeError)
    assert err.message == "Cannot assign a 2-vector to a scalar."


def test_wrong_number_of_indices_names_the_array():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0, 1] = 0

    err = error_of(k)
    assert err.message == "Array 'x' has 1 dimension(s) but was indexed with 2 index(es)."
    assert err.hint == "index every outer dimension at once, e.g. x[i, j] for a 2-d array."


def test_vector_index_must_be_an_integer():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        v = qd.Vector([1, 2])
        x[0] = v[0.5]

    err = error_of(k)
    assert err.message.startswith("A 2-vector can only be indexed with constant integers")
    assert "qd.static(range(...))" in err.hint


def test_return_without_annotation():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        return 1

    err = error_of(k)
    assert err.message == "This kernel returns a value but has no return type."
    assert "-> qd.f32" in err.hint


def test_return_inside_a_loop_of_a_kernel():
    @qd.kernel
    def k(x: qd.types.ndarray()) -> qd.i32:
        for i in x:
            return i
        return 0

    assert "only return at the top level" in error_of(k).message


def test_missing_parameter_annotation_is_reported_at_decoration():
    with pytest.raises(qd.QuadrantsSyntaxError) as info:  # upstream's class

        @qd.kernel
        def k(x):
            pass

    assert info.value.message == "Kernel parameter 'x' has no type annotation."
    assert "x: qd.types.ndarray()" in info.value.hint

    for make in (lambda: qd.kernel(_star_args), lambda: qd.kernel(_star_kwargs)):
        with pytest.raises(qd.QuadrantsSyntaxError, match="must be a plain positional parameter"):
            make()


def _star_args(*args):
    pass


def _star_kwargs(**kwargs):
    pass


def test_range_with_step_and_loop_over_a_list():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        for i in range(0, 10, 2, 1):
            pass

    err = error_of(k)
    assert err.message == "Range should have 1 or 2 arguments, found 4."
    assert err.col == inspect.getsourcelines(k.fn)[0][2].index("for")  # upstream points at the whole for-statement

    @qd.kernel
    def k2(x: qd.types.ndarray()):
        for i in [1, 2]:
            pass

    assert "qd.static(seq)" in error_of(k2).hint


def test_python_function_without_source_called_on_kernel_values():
    # Plain functions with source are inlined (test_python_functions_in_kernels.py); one made by exec() has none.
    namespace = {}
    exec("def helper(v):\n    return v + 1\n", namespace)  # noqa: S102 - a function with no source file
    helper = namespace["helper"]

    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = helper(x[1])

    err = error_of(k)
    assert err.message == "'helper' is a Python function, so it can only be called on compile-time values inside a kernel."
    assert err.hint == "decorate it with @qd.func to call it on kernel values."


def test_recursive_func():
    @qd.func
    def f(n):
        return f(n - 1)

    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = f(3)

    assert "calls itself more than 32 levels deep; only recursion that a compile-time condition ends" in \
        error_of(k).message


def test_errors_inside_funcs_point_at_the_func():
    @qd.func
    def bad(v):
        return v.nonexistent()

    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = bad(qd.Vector([1.0, 2.0]))

    err = error_of(k)
    assert err.line == line_of(bad.fn, "v.nonexistent")
    assert err.message == "A 2-vector has no method 'nonexistent'."


def test_func_called_from_python_scope():
    @qd.func
    def f(x):
        return x

    with pytest.raises(RuntimeError, match="can only be called from a @qd.kernel"):
        f(1)


def test_kernel_user_error_from_a_pass_gets_source_context():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = 1

    source = function_source(k.fn)
    line = line_of(k.fn, "x[0] = 1")

    class FakePassError(Exception):
        pass

    err = _located_error(FakePassError("type", "Cannot store a value into read-only array 'x'.", line, 8),
                         {line: source})
    assert isinstance(err, qd.QuadrantsTypeError)
    assert str(err).splitlines()[1:] == ["            x[0] = 1", "            ^"]


# Upstream's wording, which programs and its tests match, leads these messages; ours follows.


def test_function_definitions_inside_kernels_and_funcs():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        def helper():
            pass

    @qd.func
    def f():
        def helper():
            pass

    @qd.kernel
    def calls_f(x: qd.types.ndarray()):
        f()

    err = error_of(k)
    assert isinstance(err, qd.QuadrantsSyntaxError)
    assert str(err).splitlines()[0].endswith("Function definition is not allowed in 'qd.kernel'.")
    assert "Function definition is not allowed in 'qd.func'." in str(error_of(calls_f))


def compile_error_of(kernel):
    with pytest.raises(qd.QuadrantsCompilationError) as info:
        kernel(np.zeros(2, np.float32))
    return info.value


def test_raise_static_and_whole_array_operands():
    @qd.kernel
    def raises(x: qd.types.ndarray()):
        raise ValueError()

    @qd.kernel
    def static_of_runtime(x: qd.types.ndarray()):
        if qd.static(x[0] > 0):
            pass

    @qd.kernel
    def whole_array(x: qd.types.ndarray()):
        x[0] = 2 * x

    assert 'Unsupported node "Raise": this Python syntax is not supported inside kernels.' in str(
        compile_error_of(raises))
    assert ("qd.static() arguments must be compile-time constants, but got a kernel value."
            in str(compile_error_of(static_of_runtime)))
    err = compile_error_of(whole_array)
    assert isinstance(err, qd.QuadrantsTypeError)
    assert "Operator '*': unsupported operand type(s) for '*': the Python value 2 (int) and array 'x'." in str(err)


def test_float_index_names_the_array():
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[qd.f32(1.5)] = 0  # typed, so the message does not depend on an earlier test's default_fp

    assert ("Array indices must be integers, but index 0 of array 'x' is f32. Convert it with qd.cast(..., qd.i32)."
            in str(compile_error_of(k)))


def test_errors_in_funcs_show_each_call_on_the_way():
    @qd.func
    def inner():
        return missing_name  # noqa: F821

    @qd.func
    def outer():
        return inner()

    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = outer()

    err = error_of(k)
    text = str(err)
    frames = [f'File "{__file__}", line {line_of(fn, text_)}, in {fn.__name__}:'
              for fn, text_ in ((k.fn, "outer()"), (outer, "inner()"), (inner, "missing_name"))]
    positions = [text.index(frame) for frame in frames]
    assert positions == sorted(positions)  # kernel first, the error's own place last
    assert "        return missing_name  # noqa: F821\n               ^^^^^^^^^^^^" in text.expandtabs(4)
