# tests/python/test_upstream_internal_paths.py: upstream's module paths under quadrants.lang that programs and upstream's
# own tests import: lang.misc.loop_unique, lang.ast.symbol_resolver, lang.ast.transform_tree and lang.kernel.
import ast
import sys
import threading
import time

import numpy as np
import pytest

import quadrants as qd
from quadrants.frontend import translator
from quadrants.lang.ast import transform_tree
from quadrants.lang.ast.symbol_resolver import ASTResolver
from quadrants.lang.misc import loop_unique


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_loop_unique_passes_the_value_through():
    x = qd.field(qd.i32, shape=8)
    y = qd.field(qd.i32, shape=17)
    x.from_numpy(np.array([3, 1, 4, 0, 5, 9, 2, 6], dtype=np.int32))

    @qd.kernel
    def scatter():
        for i in x:
            a = loop_unique(x[i], covers=[y])
            y[a] += i + 1
            y[loop_unique(x[i]) + 7] += 1  # no covers, in an expression

    scatter()
    want = np.zeros(17, dtype=np.int32)
    for i, v in enumerate(x.to_numpy()):
        want[v] += i + 1
        want[v + 7] += 1
    np.testing.assert_array_equal(y.to_numpy(), want)


def test_loop_unique_checks_its_arguments():
    x = qd.field(qd.i32, shape=4)

    @qd.kernel
    def bad_covers():
        for i in x:
            x[i] = loop_unique(x[i], covers=3)

    with pytest.raises(qd.QuadrantsTypeError, match=r"loop_unique\(val, covers\) takes fields or SNodes in covers"):
        bad_covers()
    with pytest.raises(RuntimeError, match=r"qd.lang.misc.loop_unique\(\) can only be called inside"):
        loop_unique(1)
    assert not hasattr(qd, "loop_unique")  # upstream has it only in quadrants.lang.misc


def test_ast_resolver_resolves_dotted_names():
    import quadrants

    scope = {"qd": qd, "quadrants": quadrants, "kernel": qd.kernel, "arr": [qd]}
    assert ASTResolver.resolve_to(ast.parse("qd.kernel", mode="eval").body, qd.kernel, scope)
    assert ASTResolver.resolve_to(ast.parse("kernel", mode="eval").body, qd.kernel, scope)
    assert ASTResolver.resolve_to(ast.parse("quadrants.lang.ops.atomic_add", mode="eval").body, qd.atomic_add, scope)
    assert not ASTResolver.resolve_to(ast.parse("qd.func", mode="eval").body, qd.kernel, scope)
    assert not ASTResolver.resolve_to(ast.parse("qd.no_such_name", mode="eval").body, None, scope)  # missing
    assert not ASTResolver.resolve_to(ast.parse("arr[0].kernel", mode="eval").body, qd.kernel, scope)  # not dotted
    assert ASTResolver.resolve_value(ast.parse("qd.lang.ops", mode="eval").body, scope) is qd.lang.ops
    assert ASTResolver.resolve_value(ast.parse("missing.x", mode="eval").body, scope) is None


def test_lang_kernel_module_and_decorator():
    assert qd.lang.kernel is qd.kernel  # the attribute stays the decorator, as upstream's
    module = sys.modules["quadrants.lang.kernel"]
    assert module.transform_tree is transform_tree is translator.transform_tree
    with pytest.raises(TypeError, match="transform_tree\\(\\) expects an ast.FunctionDef"):
        transform_tree(ast.parse("x = 1"), None)


def test_kernels_translate_through_transform_tree_on_two_threads(monkeypatch):
    """Two threads compile two kernels at once, each translation slowed down inside transform_tree (upstream's
    test_concurrent_kernels does the same through quadrants.lang.kernel, whose name our kernels do not read)."""
    seen = []

    def slow(tree, tr):
        seen.append(tree.name)
        time.sleep(0.15)
        return transform_tree(tree, tr)

    monkeypatch.setattr(translator, "transform_tree", slow)

    @qd.kernel
    def add_one(x: qd.types.NDArray[qd.i32, 1]):
        for i in x:
            x[i] = x[i] + 1

    @qd.kernel
    def double(x: qd.types.NDArray[qd.i32, 1]):
        for i in x:
            x[i] = x[i] * 2

    a, b = qd.ndarray(qd.i32, (10,)), qd.ndarray(qd.i32, (10,))
    a.fill(1)
    b.fill(1)
    errors = []
    barrier = threading.Barrier(2)

    def run(kernel, arr):
        try:
            barrier.wait(timeout=10)
            kernel(arr)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(add_one, a)), threading.Thread(target=run, args=(double, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert sorted(seen) == ["add_one", "double"]
    assert (a.to_numpy() == 2).all() and (b.to_numpy() == 2).all()


def test_loop_unique_takes_val_and_covers():
    x = qd.field(qd.i32, shape=4)

    @qd.kernel
    def too_many():
        for i in x:
            x[i] = loop_unique(x[i], [x], 3)

    with pytest.raises(qd.QuadrantsTypeError, match=r"loop_unique\(val, covers=None\): takes from 1 to 2"):
        too_many()
