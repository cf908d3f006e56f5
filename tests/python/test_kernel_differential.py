# tests/python/test_kernel_differential.py: random kernels checked against reference evaluators.
#
# Expressions are tuple trees: `render` writes one as kernel source and `Evaluator` computes it over
# numpy columns with the documented rules (docs/IR.md and qd_runtime.h): Taichi's type promotion,
# wraparound of integer + - * << and negation (signed included), Python signs for // and %, integer
# `**`, `x // 0 == x % 0 == 0`, int / int in default_fp (f32 here), C's min/max/round. Control flow is checked against the same source run as
# plain Python; atomics, empty loops and vector ops against numpy. Kernels need a real source file,
# so each generated kernel is written to a temporary module first.
import importlib.util
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import quadrants as qd

NUMPY = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "f32": np.float32, "f64": np.float64}
BITS = {"i32": 32, "i64": 64, "u32": 32}
ARITHMETIC = ["+", "-", "*", "/", "//", "%", "**"]
BITWISE = ["&", "|", "^"]
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
EXACT_MATH = ["sqrt", "floor", "ceil", "abs", "round"]
INEXACT_MATH = ["sin", "cos", "exp", "log", "tanh"]
# Upstream's type check rejects these on integers (floor, ceil, round and the trigonometric functions).
REAL_ONLY_MATH = {"floor", "ceil", "round", "sin", "cos", "tanh"}
INEXACT_TOLERANCE = {"f32": 1e-4, "f64": 1e-9}


def is_float(t):
    return t[0] == "f"


def promote(a, b):
    """Quadrants' binary promotion: float beats int, wider beats narrower, unsigned beats signed."""
    if a == b:
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    size_a, size_b = np.dtype(NUMPY[a]).itemsize, np.dtype(NUMPY[b]).itemsize
    if size_a != size_b:
        return a if size_a > size_b else b
    return b if a[0] == "i" else a


def literal_type(value):
    return "f32" if isinstance(value, float) else "i32"


# ---- generation -------------------------------------------------------------------------------------
def expressions(var_types):
    """Expression trees over variables v0..vn whose types are `var_types`; no node has only literals."""
    variables = st.sampled_from([("var", k) for k in range(len(var_types))])
    literals = st.one_of(st.integers(-9, 9), st.sampled_from([0.5, -1.5, 2.0, 3.25, -0.25])).map(
        lambda v: ("lit", v))

    def extend(children):
        operand = st.one_of(children, literals)
        return st.one_of(
            st.tuples(st.just("bin"), st.sampled_from(ARITHMETIC + ["min", "max"]), children, operand),
            st.tuples(st.just("bin"), st.sampled_from(ARITHMETIC), operand, children),
            st.tuples(st.just("bin"), st.sampled_from(BITWISE), children, operand),
            st.tuples(st.just("shift"), st.sampled_from(["<<", ">>"]), children, st.integers(0, 31)),
            st.tuples(st.just("shift_by"), st.sampled_from(["<<", ">>"]), children, children),
            st.tuples(st.just("cmp"), st.sampled_from(COMPARISONS), children, operand),
            st.tuples(st.just("logic"), st.sampled_from(["and", "or"]), children, children),
            st.tuples(st.just("un"), st.sampled_from(["-", "~", "not"]), children),
            st.tuples(st.just("math"), st.sampled_from(EXACT_MATH), children),
            st.tuples(st.just("cast"), st.sampled_from(sorted(NUMPY)), children),
            st.tuples(st.just("select"), children, children, operand),
        )

    return st.recursive(variables, extend, max_leaves=6)


def programs(var_types):
    """An exact expression, or one with a libm function (or a float **) at its root only.

    libm and numpy may differ in the last bit, so inexact values are compared with a tolerance,
    which only works when no comparison, floor or cast sits above them.
    """
    tree = expressions(var_types).filter(lambda node: is_valid(node, var_types) and
                                         not is_inexact(node, var_types))
    return st.one_of(
        tree, tree,
        st.tuples(st.just("math"), st.sampled_from(INEXACT_MATH), tree),
        st.tuples(st.just("bin"), st.just("**"), tree, st.sampled_from([("lit", 2.5), ("lit", -1.5)])),
    ).filter(lambda node: is_valid(node, var_types))


def render(node):
    kind = node[0]
    if kind == "var":
        return f"v{node[1]}"
    if kind == "lit":
        return repr(node[1]) if node[1] >= 0 else f"({node[1]!r})"
    if kind == "bin" and node[1] in ("min", "max"):
        return f"qd.{node[1]}({render(node[2])}, {render(node[3])})"
    if kind in ("bin", "cmp", "logic"):
        return f"({render(node[2])} {node[1]} {render(node[3])})"
    if kind == "shift":
        return f"({render(node[2])} {node[1]} {node[3]})"
    if kind == "shift_by":
        return f"({render(node[2])} {node[1]} ({render(node[3])} & 15))"
    if kind == "un":
        return f"({node[1]} {render(node[2])})"
    if kind == "math":
        return f"qd.math.{node[1]}({render(node[2])})"
    if kind == "cast":
        return f"qd.cast({render(node[2])}, qd.{node[1]})"
    assert kind == "select", kind
    return f"({render(node[2])} if {render(node[1])} else {render(node[3])})"


def is_valid(node, var_types):
    """Whether the node type-checks (bit operators and shifts need integers) and avoids a known bug."""
    try:
        node_type(node, var_types)
    except TypeError:
        return False
    return True


def node_type(node, var_types):
    kind = node[0]
    if kind == "var":
        return var_types[node[1]]
    if kind == "lit":
        return literal_type(node[1])
    if kind == "cmp":
        node_type(node[2], var_types), node_type(node[3], var_types)
        return "i32"
    if kind == "logic":  # upstream's value rule: `a and b` is one of its operands, in their common type
        return promote(node_type(node[2], var_types), node_type(node[3], var_types))
    if kind == "un":
        t = node_type(node[2], var_types)
        if node[1] in ("~", "not") and is_float(t):
            raise TypeError(f"{node[1]} of a float")
        return "i32" if node[1] == "not" else t
    if kind == "math":
        t = node_type(node[2], var_types)
        if node[1] in REAL_ONLY_MATH and not is_float(t):
            raise TypeError(f"{node[1]} of an integer")
        return t if node[1] == "abs" or is_float(t) else "f32"
    if kind == "cast":
        node_type(node[2], var_types)
        return node[1]
    if kind == "select":
        node_type(node[1], var_types)
        return promote(node_type(node[2], var_types), node_type(node[3], var_types))
    a = node_type(node[2], var_types)
    b = "i32" if kind == "shift" else node_type(node[3], var_types)
    t = promote(a, b)
    if (kind in ("shift", "shift_by") or node[1] in BITWISE) and is_float(t):
        raise TypeError("bit operator on a float")
    if kind in ("shift", "shift_by"):
        return a  # shifts compute in the left operand's type, as upstream types them
    return "f32" if node[1] == "/" and not is_float(t) else t


def is_inexact(node, var_types):
    """Whether libm rounding (which numpy does not share bit for bit) can reach this node's value."""
    if node[0] == "math" and node[1] in INEXACT_MATH:
        return True
    if node[0] == "bin" and node[1] == "**" and is_float(node_type(node, var_types)):
        return True
    return any(is_inexact(child, var_types) for child in node[1:] if isinstance(child, tuple))


# ---- evaluation -------------------------------------------------------------------------------------
class Column:
    """A typed column of values; `fragile` marks rows whose value depends on unspecified behaviour."""

    def __init__(self, dtype, values, fragile):
        self.dtype = dtype
        self.values = np.asarray(values).astype(NUMPY[dtype])
        self.fragile = fragile

    def to(self, dtype):
        if dtype == self.dtype:
            return self
        fragile = self.fragile.copy()
        values = self.values
        if is_float(self.dtype) and not is_float(dtype) and dtype != "u1":
            # docs/IR.md: truncation; NaN gives 0 and values beyond the range saturate.
            whole = np.trunc(values.astype(np.float64))
            info = np.iinfo(NUMPY[dtype])
            values = np.where(np.isnan(whole), 0, whole)
            low, high = values <= info.min, values >= info.max
            values = np.where(low | high, 0, values).astype(NUMPY[dtype])
            values = np.where(low, info.min, np.where(high, info.max, values))
        return Column(dtype, values, fragile)


class Evaluator:
    def __init__(self, columns, row_count):
        self.columns = columns
        self.rows = row_count

    def evaluate(self, node):
        with np.errstate(all="ignore"):
            return self._evaluate(node)

    def _evaluate(self, node):
        kind = node[0]
        if kind == "var":
            return self.columns[node[1]]
        if kind == "lit":
            return Column(literal_type(node[1]), np.full(self.rows, node[1]), np.zeros(self.rows, bool))
        if kind == "cast":
            return self._evaluate(node[2]).to(node[1])
        if kind == "select":
            cond, a, b = self._evaluate(node[1]), self._evaluate(node[2]), self._evaluate(node[3])
            t = promote(a.dtype, b.dtype)
            a, b = a.to(t), b.to(t)
            taken = cond.values != 0
            fragile = cond.fragile | np.where(taken, a.fragile, b.fragile)
            return Column(t, np.where(taken, a.values, b.values), fragile)
        if kind == "un":
            return self._unary(node[1], self._evaluate(node[2]))
        if kind == "math":
            return self._math(node[1], self._evaluate(node[2]))
        a = self._evaluate(node[2])
        if kind == "shift":
            b = Column("i32", np.full(self.rows, node[3]), np.zeros(self.rows, bool))
        elif kind == "shift_by":
            amount = self._evaluate(node[3])
            b = Column(amount.dtype, amount.values & 15, amount.fragile)
        else:
            b = self._evaluate(node[3])
        return self._binary(kind, node[1], a, b)

    def _binary(self, kind, op, a, b):
        fragile = a.fragile | b.fragile
        if kind in ("shift", "shift_by"):
            # In the left operand's type, as upstream types shifts; << wraps, signed included, and an amount past
            # the width gives 0 (or -1 for >> of a negative signed value): docs/IR.md, numpy alike.
            t = a.dtype
            x, y = a.values.astype(NUMPY[t]), b.values.astype(NUMPY[t])
            return Column(t, np.left_shift(x, y) if op == "<<" else np.right_shift(x, y), fragile)
        t = promote(a.dtype, b.dtype)
        if kind == "logic":  # `a and b` is b where a is nonzero, else a; `a or b` is a where a is nonzero, else b
            x, y = a.to(t).values, b.to(t).values
            truthy = a.values != 0
            return Column(t, np.where(truthy, y, x) if op == "and" else np.where(truthy, x, y), fragile)
        if op == "/" and not is_float(t):
            t = "f32"
        x, y = a.to(t).values, b.to(t).values
        if kind == "cmp":
            return Column("i32", _COMPARE[op](x, y), fragile)
        if op in ("min", "max"):
            # qd_min(a, b) = b < a ? b : a; NaN operands have no documented answer.
            fragile = fragile | (np.isnan(x) | np.isnan(y) if is_float(t) else False)
            pick_y = (y < x) if op == "min" else (x < y)
            return Column(t, np.where(pick_y, y, x), fragile)
        if op == "**":
            values = np.power(x, y) if is_float(t) else _integer_power(x, y, t)
            return Column(t, values, fragile)
        if op in ("//", "%") and is_float(t):
            remainder = np.fmod(x, y)
            remainder = np.where((remainder != 0) & ((remainder < 0) != (y < 0)), remainder + y, remainder)
            return Column(t, np.floor(x / y) if op == "//" else remainder, fragile)
        # + - * wrap modulo 2^bits, signed included (docs/IR.md), as numpy's fixed-width integers do.
        return Column(t, _ARITHMETIC[op](x, y), fragile)

    def _unary(self, op, a):
        if op == "not":
            return Column("i32", a.values == 0, a.fragile)
        if op == "~":
            return Column(a.dtype, np.invert(a.values), a.fragile)
        return Column(a.dtype, np.negative(a.values), a.fragile)

    def _math(self, op, a):
        if op == "abs":
            values = a.values if a.dtype == "u32" else np.abs(a.values)
            return Column(a.dtype, values, a.fragile)
        if not is_float(a.dtype):
            a = a.to("f32")
        x = a.values
        if op == "round":
            whole = np.trunc(x)
            values = np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)
            return Column(a.dtype, values, a.fragile)
        functions = {"sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil, "sin": np.sin, "cos": np.cos,
                     "exp": np.exp, "log": np.log, "tanh": np.tanh}
        values = functions[op](x)
        fragile = a.fragile
        if op in INEXACT_MATH:
            fragile = fragile | (np.abs(x) > 1e4)  # large arguments: libm and numpy reduce differently
        return Column(a.dtype, values, fragile)


_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
            "!=": np.not_equal}
_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "//": np.floor_divide,
               "%": np.remainder, "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}


def _integer_power(x, y, t):
    bits = BITS[t]
    out = []
    for base, exponent in zip(x.tolist(), y.tolist()):
        if exponent < 0:
            value = 1 if base == 1 else (-1 if exponent % 2 else 1) if base == -1 else 0
        else:
            value = pow(base, exponent, 1 << bits)
        out.append(value)
    return np.array([_wrap(v, t) for v in out], dtype=NUMPY[t])


def _wrap(value, t):
    bits = BITS[t]
    value &= (1 << bits) - 1
    return value - (1 << bits) if t[0] == "i" and value >> (bits - 1) else value


# ---- data -------------------------------------------------------------------------------------------
def column_data(rng, dtype, rows):
    """Random values of `dtype` with many small values and every edge case near the front."""
    if is_float(dtype):
        specials = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e30, math.inf, -math.inf, math.nan]
        pools = [rng.integers(-8, 9, rows).astype(np.float64), rng.uniform(-10, 10, rows),
                 np.sign(rng.uniform(-1, 1, rows)) * 10.0 ** rng.uniform(-3, 6, rows)]
    else:
        info = np.iinfo(NUMPY[dtype])
        specials = sorted({0, 1, 2, 31, 32, info.max, info.min, info.max - 1, info.min + 1} |
                          ({-1, -2} if dtype[0] == "i" else set()))
        pools = [rng.integers(max(-8, info.min), 9, rows), rng.integers(max(-1000, info.min), 1001, rows),
                 rng.integers(info.min, info.max, rows, dtype=NUMPY[dtype], endpoint=True)]
    choice = rng.integers(0, len(pools), rows)
    values = np.choose(choice, [p.astype(np.float64 if is_float(dtype) else object) for p in pools])
    values = list(values)
    rng.shuffle(specials)
    values[: len(specials)] = specials[:rows]
    return np.array(values, dtype=object).astype(NUMPY[dtype])


# ---- harness ----------------------------------------------------------------------------------------
_module_numbers = itertools.count()


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_kernels")


def load_module(directory, source):
    """Imports `source` (kernels and funcs) from a fresh file, so the frontend can read it back."""
    path = directory / f"generated_{next(_module_numbers)}.py"
    path.write_text("import quadrants as qd\n\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expression_kernel_source(expression, var_types, result_type):
    params = ", ".join(f"x{k}: qd.types.ndarray(dtype=qd.{t}, ndim=1)" for k, t in enumerate(var_types))
    loads = "".join(f"        v{k} = x{k}[i]\n" for k in range(len(var_types)))
    return (f"@qd.kernel\ndef compute({params}, out: qd.types.ndarray(dtype=qd.{result_type}, ndim=1)):\n"
            f"    for i in out:\n{loads}        out[i] = {render(expression)}\n")


def assert_matches(expression, var_types, columns, actual, expected):
    keep = ~expected.fragile
    got, want = actual[keep], expected.values[keep]
    if is_float(expected.dtype) and is_inexact(expression, var_types):
        tolerance = INEXACT_TOLERANCE[expected.dtype]
        same = np.isclose(got, want, rtol=tolerance, atol=tolerance, equal_nan=True)
    elif is_float(expected.dtype):
        same = (got == want) | (np.isnan(got) & np.isnan(want))
    else:
        same = got == want
    if not same.all():
        row = int(np.flatnonzero(keep)[np.flatnonzero(~same)[0]])
        inputs = {f"v{k}": (var_types[k], column.values[row].item()) for k, column in enumerate(columns)}
        pytest.fail(f"{render(expression)} with {inputs}: kernel gave {actual[row]!r}, "
                    f"reference {expected.values[row]!r} ({expected.dtype})")


# ---- 1. expressions ---------------------------------------------------------------------------------
def typed_programs():
    types = st.lists(st.sampled_from(sorted(NUMPY)), min_size=1, max_size=3)
    return types.flatmap(lambda ts: st.tuples(st.just(tuple(ts)), programs(ts)))


# Shrinking would compile hundreds of kernels; the failure message already names the row and inputs.
def fast(max_examples):
    return settings(max_examples=max_examples, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


# Each property runs twice: over a fixed corpus (derandomized, no example database), the same cases on
# every run for a given hypothesis version, so coverage does not change from run to run; and over
# fresh random draws. A failure prints its falsifying example, including the `seed` drawn for the data.
def corpus(max_examples):
    return settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def fixed_and_random(fixed, random, examples=(), **strategies):
    """(corpus test, random test) of one property body: the explicit `examples` and `fixed` derandomized
    cases, then `random` fresh ones."""
    def build(body):
        corpus_test = given(**strategies)(body)
        for arguments in examples:
            corpus_test = example(**arguments)(corpus_test)
        return corpus(fixed)(corpus_test), fast(random)(given(**strategies)(body))
    return build


# Hand-picked corpus cases that the draws reach only sometimes: Python's // and % on every sign mix
# (exact divisions included: the data holds many small values), with mixed widths and signedness.
EXPLICIT_EXPRESSIONS = [
    (("i32", "i32"), ("bin", "//", ("var", 0), ("var", 1))),
    (("i32", "i32"), ("bin", "%", ("var", 0), ("var", 1))),
    (("i64", "i32"), ("bin", "//", ("var", 0), ("lit", -3))),
    (("i64", "i64"), ("bin", "%", ("lit", -7), ("var", 1))),
    (("u32", "i64"), ("bin", "//", ("var", 0), ("var", 1))),
    (("f32", "f64"), ("bin", "//", ("var", 0), ("var", 1))),
    (("f64", "i32"), ("bin", "%", ("var", 0), ("var", 1))),
    # Signed overflow wraps (docs/IR.md): sums, differences, products, negations and abs at the edges
    # (the data puts MIN, MAX and their neighbours in every column).
    (("i32", "i32"), ("bin", "+", ("var", 0), ("var", 1))),
    (("i64", "i64"), ("bin", "-", ("var", 0), ("var", 1))),
    (("i32", "i64"), ("bin", "*", ("bin", "*", ("var", 0), ("var", 0)), ("var", 1))),
    (("i32",), ("bin", "-", ("un", "-", ("var", 0)), ("lit", 9))),
    (("i64",), ("bin", "*", ("math", "abs", ("var", 0)), ("lit", -7))),
    # Shifts compute in the left operand's type: an i32 shifted by a u32 amount wraps as i32 (a random draw
    # once found the oracle promoting it to u32).
    (("i32",), ("bin", "**", ("shift_by", "<<", ("bin", "min", ("var", 0), ("var", 0)), ("cast", "u32", ("var", 0))),
                ("lit", 2.5))),
]


pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def expressions_match_the_reference(kernel_dir, case, seed):
    var_types, expression = case
    result_type = node_type(expression, var_types)
    kernel = load_module(kernel_dir, expression_kernel_source(expression, var_types, result_type)).compute
    rng = np.random.default_rng(seed)
    for rows in (64, 7, 300):  # the same kernel over several batches: data varies more than code
        data = [column_data(rng, t, rows) for t in var_types]
        columns = [Column(t, d, np.zeros(rows, bool)) for t, d in zip(var_types, data)]
        expected = Evaluator(columns, rows).evaluate(expression)
        out = np.zeros(rows, dtype=NUMPY[result_type])
        kernel(*data, out)
        assert_matches(expression, var_types, columns, out, expected)


test_corpus_expressions_match_the_reference, test_random_expressions_match_the_reference = fixed_and_random(
    40, 20, examples=[{"case": case, "seed": 7} for case in EXPLICIT_EXPRESSIONS], case=typed_programs(),
    seed=st.integers(0, 2**32 - 1))(expressions_match_the_reference)


def test_comparison_as_operand_of_a_runtime_helper(kernel_dir):
    kernel = load_module(kernel_dir, (
        "@qd.kernel\ndef compute(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
        "    for i in x:\n        x[i] = qd.max(x[i], x[i] > 5) + (x[i] < 3) // x[i]\n")).compute
    x = np.array([-4, 0, 1, 9], dtype=np.int32)
    kernel(x)
    np.testing.assert_array_equal(x, [-1, 0, 2, 9])


# ---- 2. control flow --------------------------------------------------------------------------------
# Random @qd.funcs over i32 with if/elif/else, while, for, break, continue, early returns and
# qd.static loops; the same source run as plain Python is the reference. Every + - * is written
# w(...): an identity qd.func in the kernel, and in the Python reference a reduction to i32, so the two
# agree when values overflow (i32 arithmetic wraps, docs/IR.md). Most assignments are taken % 1000, so
# values stay small often enough for the branches to vary; the others let products grow and wrap.
@st.composite
def int_terms(draw, names):
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "max", "min"]))
    constants = ["3", "7", "(-2)"]  # divisors stay constant: Python raises on x // 0, kernels give 0
    a, b = draw(st.sampled_from(names)), draw(st.sampled_from(constants + ([] if op in "//%" else names)))
    if op in ("max", "min"):
        return f"{op}({a}, {b})"
    return f"w({a} {op} {b})" if op in "+-*" else f"({a} {op} {b})"


def _wrap_i32(value):
    """The Python reference's w(): an exact integer reduced to i32, as the kernel's arithmetic wraps."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


@st.composite
def conditions(draw, names):
    op = draw(st.sampled_from(["<", "<=", ">", "==", "!="]))
    text = f"{draw(int_terms(names))} {op} {draw(st.sampled_from(names + ['0', '5']))}"
    if draw(st.booleans()):
        text = f"{text} and {draw(st.sampled_from(names))} % 2 == 0"
    return text


class ProgramWriter:
    """Writes one random function body; `draw` is hypothesis' draw, `counter` names loop variables."""

    def __init__(self, draw):
        self.draw = draw
        self.counter = itertools.count()

    def block(self, indent, depth, names, loop):
        count = self.draw(st.integers(1, 3))
        return "".join(self.statement(indent, depth, names, loop) for _ in range(count))

    def statement(self, indent, depth, names, loop):
        pad = " " * indent
        kinds = ["assign", "assign"]
        if depth > 0:
            kinds += ["if", "for", "while", "static"]
        if loop == "runtime":
            kinds += ["jump"]
        kinds += ["return"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "assign":
            target = self.draw(st.sampled_from(["s", "t"]))
            keep_small = self.draw(st.sampled_from([" % 1000", " % 1000", ""]))
            return f"{pad}{target} = {self.draw(int_terms(names))}{keep_small}\n"
        if kind == "return":
            return f"{pad}if {self.draw(conditions(names))}:\n{pad}    return {self.draw(int_terms(names))}\n"
        if kind == "jump":
            jump = self.draw(st.sampled_from(["break", "continue"]))
            return f"{pad}if {self.draw(conditions(names))}:\n{pad}    {jump}\n"
        if kind == "if":
            text = f"{pad}if {self.draw(conditions(names))}:\n{self.block(indent + 4, depth - 1, names, loop)}"
            if self.draw(st.booleans()):
                text += f"{pad}elif {self.draw(conditions(names))}:\n{self.block(indent + 4, depth - 1, names, loop)}"
            if self.draw(st.booleans()):
                text += f"{pad}else:\n{self.block(indent + 4, depth - 1, names, loop)}"
            return text
        var = f"j{next(self.counter)}"
        inner = names + [var]
        if kind == "for":
            bound = self.draw(st.sampled_from(["3", "b % 4", "a % 5", "(-1)"]))
            start = self.draw(st.sampled_from(["", "1, "]))
            return f"{pad}for {var} in range({start}{bound}):\n{self.block(indent + 4, depth - 1, inner, 'runtime')}"
        if kind == "static":
            return (f"{pad}for {var} in qd.static(range({self.draw(st.integers(0, 3))})):\n"
                    f"{self.block(indent + 4, depth - 1, inner, 'static')}")  # break/continue are rejected there
        # while: a counter declared just before it bounds the loop; `continue` may skip nothing else.
        limit = self.draw(st.sampled_from(["4", "a % 6"]))
        body = self.block(indent + 4, depth - 1, inner, "runtime")
        return f"{pad}{var} = 0\n{pad}while {var} < {limit}:\n{pad}    {var} += 1\n{body}"


@st.composite
def control_flow_functions(draw):
    writer = ProgramWriter(draw)
    body = writer.block(4, 3, ["a", "b", "s", "t"], None)
    return f"def f(a, b) -> qd.i32:\n    s = a\n    t = b\n{body}    return w(w(s * 3) + t)\n"


def control_flow_matches_python(kernel_dir, function, seed):
    source = (f"@qd.func\ndef w(x):\n    return x\n\n\n{function}\n\nf = qd.func(f)\n\n\n@qd.kernel\n"
              "def run(a: qd.types.ndarray(dtype=qd.i32, ndim=1), b: qd.types.ndarray(dtype=qd.i32, ndim=1),\n"
              "        out: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
              "    for i in out:\n        out[i] = f(a[i], b[i])\n")
    module = load_module(kernel_dir, source)
    reference = {"qd": qd, "w": _wrap_i32}
    exec(function, reference)  # the same function as plain Python, with the wrapping w()
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-50, 51, 200).astype(np.int32), rng.integers(-50, 51, 200).astype(np.int32)
    out = np.zeros(200, dtype=np.int32)
    module.run(a, b, out)
    expected = [reference["f"](int(x), int(y)) for x, y in zip(a, b)]
    mismatch = np.flatnonzero(out != np.array(expected))
    assert mismatch.size == 0, (f"{function}\nf({a[mismatch[0]]}, {b[mismatch[0]]}): kernel gave "
                                f"{out[mismatch[0]]}, Python {expected[mismatch[0]]}")


test_corpus_control_flow_matches_python, test_random_control_flow_matches_python = fixed_and_random(
    25, 12, function=control_flow_functions(), seed=st.integers(0, 2**32 - 1))(control_flow_matches_python)


# ---- 3. atomics, empty loops, vectors ---------------------------------------------------------------
@qd.kernel
def histogram_and_extremes(x: qd.types.ndarray(dtype=qd.i32, ndim=1), bins: qd.types.ndarray(dtype=qd.i64, ndim=1),
                           extremes: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i64:
    total = qd.i64(0)
    for i in x:
        bins[x[i] % bins.shape[0]] += 1
        total += x[i]
        qd.atomic_max(extremes[0], x[i])
        qd.atomic_min(extremes[1], x[i])
    return total


def atomics_under_parallel_loops_are_exact(values, bin_count):
    x = np.array(values, dtype=np.int32)
    bins = np.zeros(bin_count, dtype=np.int64)
    extremes = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max], dtype=np.int32)
    total = histogram_and_extremes(x, bins, extremes)
    assert total == sum(values)
    np.testing.assert_array_equal(bins, np.bincount(x.astype(np.int64) % bin_count, minlength=bin_count))
    if values:
        assert extremes.tolist() == [max(values), min(values)]


test_corpus_atomics_under_parallel_loops_are_exact, test_random_atomics_under_parallel_loops_are_exact = (
    fixed_and_random(15, 8, values=st.lists(st.integers(-2**31, 2**31 - 1), max_size=3000),
                     bin_count=st.integers(1, 9))(atomics_under_parallel_loops_are_exact))


@qd.kernel
def count_iterations(x: qd.types.ndarray(dtype=qd.f32, ndim=2), a: qd.i32, b: qd.i32) -> qd.i32:
    n = 0
    for i, j in x:
        n += 1
    for i, j in qd.ndrange(a, (b, 2)):
        n += 100
    return n


def struct_for_and_ndrange_with_empty_extents(shape, a, b):
    expected = shape[0] * shape[1] + 100 * max(a, 0) * max(2 - b, 0)
    assert count_iterations(np.zeros(shape, dtype=np.float32), a, b) == expected


test_corpus_struct_for_and_ndrange_with_empty_extents, test_random_struct_for_and_ndrange_with_empty_extents = (
    fixed_and_random(15, 8, shape=st.tuples(st.integers(0, 3), st.integers(0, 3)), a=st.integers(-2, 3),
                     b=st.integers(-1, 4))(struct_for_and_ndrange_with_empty_extents))


@qd.kernel
def vector_ops(m: qd.types.ndarray(dtype=qd.types.matrix(3, 3, qd.f64), ndim=1),
               v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f64), ndim=1),
               w: qd.types.ndarray(dtype=qd.types.vector(3, qd.f64), ndim=1),
               product: qd.types.ndarray(dtype=qd.types.vector(3, qd.f64), ndim=1),
               crossed: qd.types.ndarray(dtype=qd.types.vector(3, qd.f64), ndim=1),
               transposed: qd.types.ndarray(dtype=qd.types.matrix(3, 3, qd.f64), ndim=1),
               norms: qd.types.ndarray(dtype=qd.f64, ndim=1)):
    for i in m:
        product[i] = m[i] @ v[i]
        crossed[i] = v[i].cross(w[i])
        transposed[i] = m[i].transpose() @ m[i]
        norms[i] = v[i].norm() + w[i].dot(v[i])


def vector_and_matrix_ops_match_numpy(seed, rows):
    rng = np.random.default_rng(seed)
    m, v, w = rng.normal(size=(rows, 3, 3)), rng.normal(size=(rows, 3)), rng.normal(size=(rows, 3))
    product, crossed, norms = np.zeros((rows, 3)), np.zeros((rows, 3)), np.zeros(rows)
    transposed = np.zeros((rows, 3, 3))
    vector_ops(m, v, w, product, crossed, transposed, norms)
    np.testing.assert_allclose(product, np.einsum("rij,rj->ri", m, v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(crossed, np.cross(v, w), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(transposed, np.einsum("rki,rkj->rij", m, m), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(norms, np.linalg.norm(v, axis=1) + (v * w).sum(axis=1), rtol=1e-12, atol=1e-12)


test_corpus_vector_and_matrix_ops_match_numpy, test_random_vector_and_matrix_ops_match_numpy = fixed_and_random(
    15, 8, seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 40))(vector_and_matrix_ops_match_numpy)
