# Upstream's AST helpers for dataclass parameters (lang/ast/ast_transformers, lang/_pruning.py): the flat names a
# dataclass argument expands into, pruning, and the per-member binding.
import ast
import dataclasses

import pytest

import quadrants as qd
from quadrants.lang._func_base import FuncBase
from quadrants.lang._pruning import Pruning
from quadrants.lang.ast.ast_transformer_utils import ASTTransformerFuncContext, ASTTransformerGlobalContext
from quadrants.lang.ast.ast_transformers.call_transformer import CallTransformer
from quadrants.lang.ast.ast_transformers.function_def_transformer import FunctionDefTransformer


@dataclasses.dataclass
class Pair:
    a: qd.types.NDArray[qd.i32, 1]
    b: qd.types.NDArray[qd.f32, 2]


@dataclasses.dataclass
class Nested:
    x: qd.types.NDArray[qd.i32, 1]
    pair: Pair


def context(used=None):
    return ASTTransformerFuncContext(FuncBase(), ASTTransformerGlobalContext(Pruning(used)))


def names(nodes):
    return [n.id for n in nodes]


def test_a_dataclass_argument_expands_in_declaration_order_and_other_arguments_stay():
    plain = ast.Constant(value=3)
    s = ast.Name(id="s", ctx=ast.Load(), ptr=Nested, lineno=4, col_offset=2, end_lineno=4, end_col_offset=3)
    added, out = CallTransformer._expand_Call_dataclass_args(context(), [plain, s])
    assert names(added) == ["__qd_s__qd_x", "__qd_s__qd_pair__qd_a", "__qd_s__qd_pair__qd_b"]
    assert out[0] is plain and names(out[1:]) == names(added)
    assert all(n.lineno == 4 and isinstance(n.ctx, ast.Load) for n in added)


def test_pruning_keeps_only_the_members_the_kernel_reads():
    s = ast.Name(id="s", ctx=ast.Load(), ptr=Nested)
    added, _ = CallTransformer._expand_Call_dataclass_args(context({"__qd_s__qd_pair", "__qd_s__qd_pair__qd_b"}), [s])
    assert names(added) == ["__qd_s__qd_pair__qd_b"]
    with pytest.raises(TypeError, match="expects a set of flat parameter names or None, but got list"):
        Pruning(["__qd_s__qd_x"])


def test_members_are_bound_under_their_flat_names():
    qd.init(arch=qd.cpu)
    value = Nested(qd.ndarray(qd.i32, (2,)), Pair(qd.ndarray(qd.i32, (3,)), qd.ndarray(qd.f32, (2, 2))))
    ctx = context()
    FunctionDefTransformer._transform_func_arg(ctx, "s", Nested, value)
    assert list(ctx.variables) == ["__qd_s__qd_x", "__qd_s__qd_pair__qd_a", "__qd_s__qd_pair__qd_b"]
    assert ctx.variables["__qd_s__qd_pair__qd_b"] is value.pair.b
    FunctionDefTransformer._transform_func_arg(ctx, "n", qd.i32, 5)  # not a dataclass: one variable
    assert ctx.variables["n"] == 5
    with pytest.raises(KeyError, match="already defined"):
        ctx.create_variable("n", 6)
